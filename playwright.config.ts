import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";
import {
  E2E_BLOB_API_PORT,
  E2E_BLOB_PORT,
  E2E_BLOB_URL,
  E2E_INBOX,
  E2E_PORT,
  E2E_TURNSTILE_API_PORT,
  E2E_TURNSTILE_URL,
  E2E_URL,
} from "./tests/e2e/env";

/** Debian's Chromium where it is installed (CI, this project's machines); else Playwright's own browser. */
const systemChromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));
const runningAsRoot = process.getuid?.() === 0;
const rootArgs = runningAsRoot
  ? ["--no-sandbox", "--disable-background-networking", "--disable-component-update"]
  : [];

/**
 * For the Blob projects: the SDK in the page calls https://vercel.com/api/blob, so vercel.com
 * resolves to that project's stand-in's HTTPS listener, and every other name to nothing: the
 * browser can reach no real host at all (Cloudflare's widget script is served by the tests).
 */
const onlyVercelAt = (port: number) =>
  `--host-resolver-rules=MAP vercel.com 127.0.0.1:${port}, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1`;

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results/e2e",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // A bound on a test that hangs, not a speed target (those are `npm run bench`'s): a test of four
  // axe scans takes 16 s alone here and 35 s on CI while the adopter project builds its site on the
  // other core, past Playwright's default 30 s. Tests of whole inbox sessions set their own 90 s.
  timeout: 60_000,
  forbidOnly: Boolean(process.env.CI),
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  globalSetup: "./tests/e2e/global-setup.ts",
  use: {
    baseURL: E2E_URL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: { executablePath: systemChromium, args: rootArgs },
  },
  projects: [
    // The filesystem inbox: files travel in the form.
    {
      name: "chromium",
      use: { browserName: "chromium" },
      testIgnore: [/blob-.*\.spec\.ts$/, /turnstile\.spec\.ts$/, /adopter\.spec\.ts$/],
    },
    // Another site adopting the packed package: its own install, build and server (minutes).
    { name: "adopter", testMatch: /adopter\.spec\.ts$/, use: { browserName: "chromium" } },
    // The Vercel Blob inbox: files are uploaded ahead of the form, to a stand-in for Blob.
    {
      name: "chromium-blob",
      testMatch: /blob-.*\.spec\.ts$/,
      use: {
        browserName: "chromium",
        baseURL: E2E_BLOB_URL,
        // The stand-in's certificate for vercel.com is a throwaway one of its own.
        ignoreHTTPSErrors: true,
        launchOptions: {
          executablePath: systemChromium,
          args: [...rootArgs, onlyVercelAt(E2E_BLOB_API_PORT)],
        },
      },
    },
    // Human verification on (the Blob inbox, so both of the contact form's token paths run), with
    // a siteverify stand-in and a fake of Cloudflare's widget script.
    {
      name: "chromium-turnstile",
      testMatch: /turnstile\.spec\.ts$/,
      use: {
        browserName: "chromium",
        baseURL: E2E_TURNSTILE_URL,
        ignoreHTTPSErrors: true,
        launchOptions: {
          executablePath: systemChromium,
          args: [...rootArgs, onlyVercelAt(E2E_TURNSTILE_API_PORT)],
        },
      },
    },
  ],
  webServer: [
    {
      command: `node node_modules/next/dist/bin/next start --port ${E2E_PORT} --hostname 127.0.0.1`,
      url: `${E2E_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        NODE_ENV: "production",
        SITE_URL: E2E_URL,
        INBOX_DIR: E2E_INBOX,
        IP_HASH_SALT: "e2e",
      },
    },
    {
      command: "node --import tsx tests/e2e/blob-server.ts",
      url: `${E2E_BLOB_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: { E2E_BLOB_PORT: String(E2E_BLOB_PORT) },
    },
    {
      command: "node --import tsx tests/e2e/turnstile-server.ts",
      url: `${E2E_TURNSTILE_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
  ],
});
