/**
 * npm run bench [-- --duration 8 --runs 3 --warm-up 10 --connections 32 --uploads-1mib 32 --uploads 16
 *                   --build --skip-throughput --skip-secondary --skip-memory --skip-cold-start --skip-inbox]
 *
 * Measures the built app under `next start`: the server's CPU time per request (its whole process
 * tree, from /proc) on each route as a ratio to GET /api/health's on the same server, on the embedded
 * defaults and with part 2's features on (Turnstile, the acknowledgment and double opt-in, through
 * siteverify and SMTP stand-ins in this process, every email counted), the median of `--runs` runs on
 * fresh servers, with requests/s and p99 beside it; then the server's peak memory under 32
 * concurrent 1 MiB uploads (and 10 MiB ones), and how much of a declared 100 MiB body is read before
 * the 413; and each form post's first answer on a freshly started server (cold start) against
 * health's. Prints tables and writes bench/results.json. Everything is bounded: fixed durations,
 * fixed request counts, time limits.
 */
import { spawnSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startBlobStandIn } from "../tests/support/blob-standin";
import { startSiteverifyStandIn } from "../tests/support/siteverify-standin";
import { startSmtpServer } from "../tests/support/smtp";
import { TEN_MIB } from "../tests/support/files";
import { type ColdStartSummary, measureColdStart } from "./bench/cold-start";
import { type MemoryResult, measureUploadMemory } from "./bench/memory";
import { measureModuleLoads, type ModuleLoad } from "./bench/module-loads";
import { measureDeclaredOversize, type OversizeResult } from "./bench/oversize";
import { fixed, mib, printCpu, printEmails } from "./bench/report";
import { type CpuRun, cpuRuns, type CpuSummary, summarise } from "./bench/runs";
import { type BenchSurroundings, ensureBuild, startServer, TURNSTILE_SECRET } from "./bench/servers";
import { readSettings } from "./bench/settings";
import { targets } from "./bench/targets";
import { KiB, MiB } from "./bench/traffic";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
const settings = readSettings();
const { duration, warmUp, runs: runCount, connections, uploads, uploads1MiB } = settings;

/** One upload memory measurement on a fresh server, printed as it ends. */
async function uploadMemory(
  around: BenchSurroundings,
  inbox: "filesystem" | "blob",
  count: number,
  fileBytes: number,
  after?: (server: Awaited<ReturnType<typeof startServer>>) => Promise<void>,
): Promise<MemoryResult> {
  const server = await startServer(inbox, around);
  try {
    console.log(
      `\nMemory, ${inbox} inbox: ${count} concurrent uploads of a ${mib(fileBytes)} PDF (server pid ${server.pid})...`,
    );
    const result = await measureUploadMemory(server.app, server.pid, inbox, count, fileBytes);
    console.log(
      `  idle ${mib(result.idleRssBytes)}, peak ${mib(result.peakRssBytes)} (${result.peakSource}), ` +
        `above idle ${mib(result.peakAboveIdleBytes)} = ${fixed(result.ratioToBytesInFlight, 2)}x of ` +
        `${mib(result.bytesInFlight)}; answers ${JSON.stringify(result.statuses)} in ${fixed(result.elapsedMs / 1000)} s`,
    );
    await after?.(server);
    return result;
  } finally {
    await server.app.stop();
  }
}

function printOversize(oversize: OversizeResult): void {
  console.log(
    `  ${oversize.status} after ${fixed(oversize.answeredAfterMs)} ms; by then the client had sent ` +
      `${fixed(oversize.clientBytesSent / KiB)} KiB and the server had read ${fixed(oversize.serverBytesRead / KiB)} KiB`,
  );
  console.log(
    `  sending on for 1 s after the answer: client sent ${fixed(oversize.afterwards.clientBytesSent / KiB)} KiB, ` +
      `server read ${fixed(oversize.afterwards.serverBytesRead / KiB)} KiB, connection ` +
      (oversize.afterwards.connectionClosed ? "closed by the server" : "still open"),
  );
}

async function main(): Promise<void> {
  ensureBuild(settings.build);
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    memoryBytes: os.totalmem(),
    loadAverageAtStart: os.loadavg(),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  };
  console.log(
    `Machine: ${machine.cpus} x ${machine.cpuModel}, ${mib(machine.memoryBytes)}, ${machine.platform}, Node ${machine.node}; ` +
      `load average ${machine.loadAverageAtStart.map((load) => load.toFixed(2)).join(" ")}`,
  );
  const inboxes: string[] = [];
  let runs: CpuRun[] = [];
  let cpu: CpuSummary | null = null;
  const memory1MiB: MemoryResult[] = [];
  const memory1MiBAgain: MemoryResult[] = [];
  const memory: MemoryResult[] = [];
  let oversize: OversizeResult | null = null;
  let coldStart: ColdStartSummary | null = null;
  let moduleLoads: ModuleLoad[] = [];
  const standIn = await startBlobStandIn();
  const siteverify = await startSiteverifyStandIn({ secret: TURNSTILE_SECRET, hostname: "127.0.0.1" });
  const smtp = await startSmtpServer({ envelopesOnly: true });
  const around: BenchSurroundings = { standIn, siteverify, smtp, inboxes };
  try {
    if (!settings.skipThroughput) {
      console.log(
        `\nServer CPU per request: ${runCount} runs; in each, a fresh server per configuration, each route ` +
          `warmed ${warmUp} s then measured ${duration} s at ${connections} connections, health first and last`,
      );
      runs = await cpuRuns(around, { ...settings, runs: runCount });
      cpu = summarise(runs);
      printCpu(cpu);
      if (cpu.emails) printEmails(cpu.emails);
    }
    if (!settings.skipMemory) {
      // A fresh server per run takes the burst once (its first burst, reported: mostly the runtime
      // growing to its working size), then the same burst again: the target's figure, what a
      // server in service grows by (the memory freed after the first stays with the process).
      const burstAgain = async ({ app, pid }: Awaited<ReturnType<typeof startServer>>) => {
        const again = await measureUploadMemory(app, pid, "filesystem", uploads1MiB, MiB);
        memory1MiBAgain.push(again);
        console.log(
          `  the same again on this server: idle ${mib(again.idleRssBytes)}, above idle ` +
            `${mib(again.peakAboveIdleBytes)} = ${fixed(again.ratioToBytesInFlight, 2)}x; answers ${JSON.stringify(again.statuses)}`,
        );
      };
      for (let run = 0; run < runCount; run++)
        memory1MiB.push(await uploadMemory(around, "filesystem", uploads1MiB, MiB, burstAgain));
      for (const inbox of ["filesystem", "blob"] as const) {
        // A quarter of the uploads too, to tell what each upload holds from the garbage the runtime
        // lets build up before it collects (a level that does not grow with the uploads).
        for (const count of [uploads, Math.max(1, Math.floor(uploads / 4))]) {
          const probe =
            inbox === "filesystem" && count === uploads
              ? async ({ app, pid }: Awaited<ReturnType<typeof startServer>>) => {
                  console.log("\nDeclared 100 MiB body, sent 16 KiB every 2 ms:");
                  oversize = await measureDeclaredOversize(app, pid);
                  printOversize(oversize);
                }
              : undefined;
          memory.push(await uploadMemory(around, inbox, count, TEN_MIB, probe));
        }
      }
    }
    if (!settings.skipColdStart) {
      console.log(
        `\nCold start: ${runCount} fresh servers per route, the first request as soon as it is ready`,
      );
      coldStart = await measureColdStart(runCount, inboxes);
      console.log("\nEach dependency's import in a fresh Node process (median of the runs):");
      moduleLoads = measureModuleLoads(runCount);
      for (const { name, loadMs } of moduleLoads) console.log(`  ${name.padEnd(22)} ${fixed(loadMs, 0)} ms`);
    }
  } finally {
    await standIn.close();
    await siteverify.stop();
    await smtp.stop();
    await Promise.all(inboxes.map((inbox) => rm(inbox, { recursive: true, force: true })));
  }

  const loadAverageAtEnd = os.loadavg();
  console.log(`\nLoad average at the end: ${loadAverageAtEnd.map((load) => load.toFixed(2)).join(" ")}`);
  const results = targets(cpu, memory1MiB, memory1MiBAgain, memory, oversize, coldStart);
  console.log("\nTargets:");
  for (const target of results)
    console.log(`  ${target.met ? "met    " : "MISSED "} ${target.target}: ${target.measured}`);

  const output = settings.output;
  await mkdir(dirname(output), { recursive: true });
  await writeFile(
    output,
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        machine: { ...machine, loadAverageAtEnd },
        settings: { duration, warmUp, runs: runCount, connections, uploads, uploads1MiB },
        cpu,
        runs,
        memory1MiB,
        memory1MiBAgain,
        memory,
        oversize,
        coldStart,
        moduleLoads,
        targets: results,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nWrote ${output}`);

  // The inbox on the web's reading, then the look for due deliveries, last, on their defaults
  // (`npm run bench:inbox` and `npm run bench:deliveries` take their own flags).
  if (!settings.skipInbox) {
    for (const script of ["scripts/bench/inbox.ts", "scripts/bench/deliveries.ts"]) {
      const run = spawnSync(process.execPath, [...process.execArgv, join(root, script)], {
        stdio: "inherit",
      });
      if (run.status !== 0) process.exitCode = run.status ?? 1;
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
