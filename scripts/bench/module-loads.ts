import { spawnSync } from "node:child_process";
import { median } from "./runs";

/**
 * What each dependency costs to load: its import timed inside a fresh Node process (nothing else
 * loaded), the median of `runs`. Where a cold start's time goes, beside which of them a route on
 * the embedded defaults loads at all (see docs/performance.md).
 */

export const DEPENDENCIES = [
  "zod",
  "busboy",
  "file-type",
  "nodemailer",
  "react-dom/server",
  "html-to-text",
  "@upstash/redis",
  "@upstash/ratelimit",
  "@upstash/qstash",
  "@vercel/blob",
  "undici",
  "standardwebhooks",
] as const;

export interface ModuleLoad {
  name: string;
  loadMs: number;
  runs: number[];
}

const TIMED_IMPORT =
  "const t = performance.now(); await import(process.argv[1]); console.log(performance.now() - t);";

export function measureModuleLoads(runs: number): ModuleLoad[] {
  return DEPENDENCIES.map((name) => {
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const result = spawnSync(process.execPath, ["--input-type=module", "-e", TIMED_IMPORT, name], {
        encoding: "utf8",
      });
      if (result.status !== 0) throw new Error(`importing ${name} failed:\n${result.stderr}`);
      times.push(Number(result.stdout.trim()));
    }
    return { name, loadMs: median(times), runs: times };
  });
}
