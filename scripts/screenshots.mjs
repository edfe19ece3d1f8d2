/**
 * `npm run screenshots`: the pictures the README shows, taken in the system's Chromium (or
 * Playwright's own) against `next start` on embedded defaults: `docs/site.png`, the landing page
 * as it opens, and `docs/site-contact.png`, its contact form. Builds first when there is no build (or with `--build`).
 */
import { existsSync } from "node:fs";
import { chromium } from "@playwright/test";
import { ensureBuild, startApp } from "./app-server.mjs";

const executablePath = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));
const rootArgs =
  process.getuid?.() === 0
    ? ["--no-sandbox", "--disable-background-networking", "--disable-component-update"]
    : [];

await ensureBuild(process.argv.includes("--build"));
const app = await startApp("screenshots");
const browser = await chromium.launch({ executablePath, args: rootArgs });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  await page.goto(`${app.url}/`, { waitUntil: "networkidle" });
  await page.screenshot({ path: "docs/site.png" });
  await page.locator("#contact").screenshot({ path: "docs/site-contact.png" });
  console.log("wrote docs/site.png and docs/site-contact.png");
} finally {
  await browser.close();
  app.stop();
}
