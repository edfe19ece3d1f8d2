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
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch } from "chrome-launcher";
import lighthouse from "lighthouse";

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

function ensureBuild(force) {
  if (!force && existsSync(".next/BUILD_ID")) return;
  console.log("Building...");
  const result = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: "inherit",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** `next start` on embedded defaults (a fresh filesystem inbox), ready when it answers. */
async function startApp() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const inbox = await mkdtemp(join(tmpdir(), "intake-lighthouse-"));
  const child = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "--port", String(port), "--hostname", "127.0.0.1"],
    {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: "production",
        SITE_URL: url,
        INBOX_DIR: inbox,
        IP_HASH_SALT: "lighthouse",
      },
      stdio: "ignore",
    },
  );
  for (let waited = 0; waited < 60_000; waited += 200) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return { url, stop: () => child.kill() };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error("next start did not answer within 60 s");
}

ensureBuild(process.argv.includes("--build"));
const app = await startApp();
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
