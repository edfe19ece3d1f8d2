import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { type AppServer, startApp, tempDir } from "../support/server";

/**
 * One build serves every configuration: the landing page is prerendered (it reads nothing per
 * request), and the forms learn the run-time modes from `GET /api/form-settings`, so changing a
 * variable needs a restart, never a rebuild. (The browser tests send a file through the same
 * build on the filesystem inbox and on the Blob stand-in.)
 */

describe("the build", () => {
  it("prerenders the landing page", async () => {
    const manifest = JSON.parse(await readFile(".next/prerender-manifest.json", "utf8")) as {
      routes: Record<string, unknown>;
    };
    expect(Object.keys(manifest.routes)).toContain("/");
  });
});

describe("GET /api/form-settings, from the same build in each mode", () => {
  let standIn: BlobStandIn;
  const apps: AppServer[] = [];

  beforeAll(async () => {
    standIn = await startBlobStandIn();
  });

  afterAll(async () => {
    for (const app of apps) await app.stop();
    await standIn?.close();
  });

  async function settingsOf(env: Record<string, string>) {
    const app = await startApp(env);
    apps.push(app);
    // The landing page is the prerendered one whatever the mode, and a CDN may keep it.
    const page = await fetch(`${app.url}/`);
    expect(page.headers.get("x-nextjs-prerender")).toMatch(/^1\b/);
    expect(page.headers.get("cache-control")).toMatch(/s-maxage=\d+/);
    expect(page.headers.get("cache-control")).not.toMatch(/no-store|private/);
    const response = await fetch(`${app.url}/api/form-settings`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    return response.json();
  }

  it("filesystem inbox, no verification: files travel in the form", async () => {
    expect(await settingsOf({ INBOX_DIR: await tempDir() })).toEqual({
      upload: "form",
      turnstileSiteKey: null,
    });
  });

  it("Vercel Blob inbox: files go to the store ahead of the form", async () => {
    expect(await settingsOf(blobEnv(standIn.token, standIn.origin))).toEqual({
      upload: "blob",
      turnstileSiteKey: null,
    });
  });

  it("Turnstile on: the public site key, never the secret", async () => {
    const settings = await settingsOf({
      INBOX_DIR: await tempDir(),
      TURNSTILE_SITE_KEY: "0x4AAAAAAAsitekeyfortests",
      TURNSTILE_SECRET_KEY: "0x4AAAAAAAsecretkeyfortests",
    });
    expect(settings).toEqual({ upload: "form", turnstileSiteKey: "0x4AAAAAAAsitekeyfortests" });
    expect(JSON.stringify(settings)).not.toContain("secret");
  });
});
