/**
 * npm run bench [-- --duration 10 --rounds 5 --connections 32 --uploads 16 --build --skip-throughput --skip-memory --skip-inbox]
 *
 * Measures the built app under `next start` on its embedded defaults (filesystem inbox in a temporary
 * directory, in-memory limits set very high): throughput and latency of each endpoint beside the
 * framework's floor (GET /api/health), both forms again with Turnstile, the acknowledgment and double
 * opt-in on (siteverify and SMTP stand-ins in this process, every email counted), the server's peak
 * memory under concurrent 10 MiB uploads, and
 * how much of a declared 100 MiB body is read before the 413. Prints a table and writes
 * bench/results.json. Everything is bounded: fixed durations, fixed request counts, time limits.
 */
import { spawnSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startBlobStandIn } from "../tests/support/blob-standin";
import { startSiteverifyStandIn } from "../tests/support/siteverify-standin";
import { startSmtpServer } from "../tests/support/smtp";
import { checkEmails, type EmailCheck } from "./bench/emails";
import { type MemoryResult, measureUploadMemory } from "./bench/memory";
import { measureDeclaredOversize, type OversizeResult } from "./bench/oversize";
import { fixed, mib, printEmails, printThroughput } from "./bench/report";
import {
  type BenchSurroundings,
  ensureBuild,
  type MeasuredServer,
  type ServerKind,
  startServer,
  TURNSTILE_SECRET,
} from "./bench/servers";
import { readSettings } from "./bench/settings";
import { targets } from "./bench/targets";
import { measureThroughput, type ThroughputRow } from "./bench/throughput";
import { KiB, sleep } from "./bench/traffic";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
const settings = readSettings();
const { duration, rounds, connections, uploads } = settings;

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
  let throughput: ThroughputRow[] | null = null;
  const memory: MemoryResult[] = [];
  let oversize: OversizeResult | null = null;
  let emails: EmailCheck | null = null;
  const standIn = await startBlobStandIn();
  const siteverify = await startSiteverifyStandIn({ secret: TURNSTILE_SECRET, hostname: "127.0.0.1" });
  const smtp = await startSmtpServer({ envelopesOnly: true });
  const around: BenchSurroundings = { standIn, siteverify, smtp, inboxes };
  try {
    if (!settings.skipThroughput) {
      const servers: Partial<Record<ServerKind, MeasuredServer>> = {};
      try {
        for (const kind of ["filesystem", "limited", "blob", "features"] as const)
          servers[kind] = await startServer(kind, around);
        const all = servers as Record<ServerKind, MeasuredServer>;
        console.log(
          `\nThroughput (filesystem inbox: ${all.filesystem.app.url}, default limits: ${all.limited.app.url}, ` +
            `Blob inbox through the stand-in: ${all.blob.app.url}, Turnstile, acknowledgment and double ` +
            `opt-in through the siteverify and SMTP stand-ins: ${all.features.app.url}):`,
        );
        throughput = await measureThroughput(all, settings);
        // delivery.json may be written just after the last answers (recordDelivery's short wait).
        await sleep(1000);
        emails = await checkEmails(all.features.inbox as string, smtp);
      } finally {
        await Promise.all(Object.values(servers).map((server) => server.app.stop()));
      }
      printThroughput(throughput);
      if (emails) printEmails(emails);
    }
    if (!settings.skipMemory) {
      for (const inbox of ["filesystem", "blob"] as const) {
        // A fresh server each time, so earlier garbage does not count as its idle level; and a
        // quarter of the uploads too, to tell what each upload holds from the garbage the runtime
        // lets build up before it collects (a level that does not grow with the uploads).
        for (const count of [uploads, Math.max(1, Math.floor(uploads / 4))]) {
          const { app, pid } = await startServer(inbox, around);
          try {
            console.log(
              `\nMemory, ${inbox} inbox: ${count} concurrent uploads of a 10 MiB PDF (server pid ${pid})...`,
            );
            const result = await measureUploadMemory(app, pid, inbox, count);
            memory.push(result);
            console.log(
              `  idle ${mib(result.idleRssBytes)}, peak ${mib(result.peakRssBytes)} (${result.peakSource}), ` +
                `above idle ${mib(result.peakAboveIdleBytes)} = ${fixed(result.ratioToBytesInFlight, 2)}x of ` +
                `${mib(result.bytesInFlight)}; answers ${JSON.stringify(result.statuses)} in ${fixed(result.elapsedMs / 1000)} s`,
            );
            if (inbox === "filesystem" && count === uploads) {
              console.log("\nDeclared 100 MiB body, sent 16 KiB every 2 ms:");
              oversize = await measureDeclaredOversize(app, pid);
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
          } finally {
            await app.stop();
          }
        }
      }
    }
  } finally {
    await standIn.close();
    await siteverify.stop();
    await smtp.stop();
    await Promise.all(inboxes.map((inbox) => rm(inbox, { recursive: true, force: true })));
  }

  const loadAverageAtEnd = os.loadavg();
  console.log(`\nLoad average at the end: ${loadAverageAtEnd.map((load) => load.toFixed(2)).join(" ")}`);
  const results = targets(throughput, memory, oversize, emails);
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
        settings: { duration, rounds, connections, uploads },
        throughput,
        emails,
        memory,
        oversize,
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
