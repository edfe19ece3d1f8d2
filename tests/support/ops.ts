import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

export { attachmentFor, readJson, storeBrief, type StoreBriefOptions, storeUndelivered } from "./briefs";

const SCRIPT = resolve("scripts/inbox.ts");
/** tsx's loader by absolute URL, so the tool also runs from another working directory. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

export interface ToolRun {
  code: number | null;
  stdout: string;
  /** stdout as bytes, for `attachment --out -`. */
  stdoutBytes: Buffer;
  stderr: string;
  elapsedMs: number;
}

/**
 * Runs the ops tool as ops do, in a process of its own (`node --import tsx scripts/inbox.ts`),
 * with only the given variables set (plus PATH and HOME), so nothing leaks in from the test's
 * environment.
 */
export function runInbox(
  args: readonly string[],
  options: { env: Record<string, string>; cwd?: string; timeoutMs?: number },
): Promise<ToolRun> {
  const startedAt = Date.now();
  const child = spawn(process.execPath, ["--import", TSX_LOADER, SCRIPT, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  return new Promise((resolvePromise, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolvePromise({
        code,
        stdout: stdoutBytes.toString("utf8"),
        stdoutBytes,
        stderr: Buffer.concat(err).toString("utf8"),
        elapsedMs: Date.now() - startedAt,
      });
    });
  });
}
