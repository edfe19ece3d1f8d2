/**
 * The built app for the measuring scripts (`npm run lighthouse`, `npm run screenshots`): a build
 * when there is none, and `next start` on embedded defaults with a fresh filesystem inbox.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** `next build` when there is no build yet, or when `force`d. */
export async function ensureBuild(force) {
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
export async function startApp(name) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const inbox = await mkdtemp(join(tmpdir(), `intake-${name}-`));
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
        IP_HASH_SALT: name,
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
