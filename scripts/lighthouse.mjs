/**
 * `npm run lighthouse`: audits the landing page as a new visitor on a phone would meet it
 * (Lighthouse's mobile defaults: a mid-range phone, throttled network and CPU), in the system's
 * Chromium, against `next start` on embedded defaults. Builds first when there is no build (or with
 * `--build`), prints the four category scores and the main metrics, and writes the whole report to
 * `test-results/lighthouse/report.json`. A measurement, not a test: nothing here fails on a score.
 *
 * Plain JavaScript on purpose: Lighthouse runs some of its functions inside the page, and a
 * TypeScript loader's helpers (tsx's `__name`) would go with them and break there.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { launch } from "chrome-launcher";
import lighthouse from "lighthouse";
import { ensureBuild, startApp } from "./app-server.mjs";

const REPORT = "test-results/lighthouse/report.json";
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));
const METRICS = [
  "first-contentful-paint",
  "largest-contentful-paint",
  "total-blocking-time",
  "cumulative-layout-shift",
  "speed-index",
  "unused-javascript",
];

await ensureBuild(process.argv.includes("--build"));
const app = await startApp("lighthouse");
const chrome = await launch({
  ...(CHROMIUM ? { chromePath: CHROMIUM } : {}),
  chromeFlags: [
    "--headless=new",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
  ],
});
try {
  const result = await lighthouse(`${app.url}/`, { port: chrome.port, output: "json", logLevel: "error" });
  if (!result) throw new Error("Lighthouse returned no result");
  const { lhr, report } = result;
  await mkdir("test-results/lighthouse", { recursive: true });
  await writeFile(REPORT, Array.isArray(report) ? report[0] : report);
  console.log(
    `Lighthouse ${lhr.lighthouseVersion} (${lhr.configSettings.formFactor}) on ${lhr.finalDisplayedUrl}`,
  );
  for (const [id, category] of Object.entries(lhr.categories)) {
    console.log(`  ${(category.title ?? id).padEnd(28)} ${Math.round((category.score ?? 0) * 100)}`);
  }
  for (const id of METRICS) {
    const audit = lhr.audits[id];
    if (audit) console.log(`  ${audit.title.padEnd(28)} ${audit.displayValue ?? ""}`);
  }
  const failing = Object.values(lhr.audits).filter(
    (audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === "binary",
  );
  for (const audit of failing) console.log(`  failing: ${audit.id} (${audit.title})`);
  console.log(`Report: ${REPORT}`);
} finally {
  chrome.kill();
  app.stop();
}
