/**
 * npm run bench:deliveries [-- --briefs 50000 --due 10 --more-due 1000 --latency 20]   (also run by npm run bench)
 *
 * What looking for due deliveries costs with a large inbox (part 4: "finding what is due or
 * failed costs what is pending or failed, never what is stored"): 50,000 briefs stored (the
 * generator of bench:inbox), 10 of them with a due record (dueAt ahead, so the scheduler's round
 * finds nothing ready) and 3 with a failed one, on the filesystem inbox and on the Vercel Blob
 * inbox (the stand-in, through the real SDK, every call held back by `--latency` ms). Measured:
 * the scheduler's round (`Deliveries.runDue`: lists and reads the due records), `listDue`, the
 * list's marks (`pendingReferences`), the health count (`pendingCounts`, uncached) and the ops
 * tool's `list --delivery failed` (`pendingBriefs`). Then `--more-due` due records are added and
 * the round measured again: it grows with what is due, not with what is stored. Target: the
 * round under 100 ms on the filesystem.
 */
import { rm } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parseConfig } from "../../lib/config";
import { Deliveries, listDue, pendingCounts, pendingReferences } from "../../lib/deliveries";
import { pendingBriefs } from "../../lib/ops";
import { createStore, type ObjectStore } from "../../lib/store";
import { FilesystemStore } from "../../lib/store/filesystem";
import { routeBlobStorageTo } from "../../tests/support/blob-routing.mjs";
import { startBlobStandIn } from "../../tests/support/blob-standin";
import { tempDir } from "../../tests/support/server";
import { type BenchBrief, briefFiles, putBriefsIn, withLatency, writeBriefsTo } from "./stored-briefs";

const { values: flags } = parseArgs({
  options: {
    briefs: { type: "string", default: "50000" },
    due: { type: "string", default: "10" },
    "more-due": { type: "string", default: "1000" },
    latency: { type: "string", default: "20" },
  },
});
const BRIEFS = Number(flags.briefs);
const DUE = Number(flags.due);
const MORE_DUE = Number(flags["more-due"]);
const LATENCY_MS = Number(flags.latency);
const FAILED = 3;
const ROUND_TARGET_MS = 100;
const now = new Date("2026-11-23T12:00:00.000Z");
const later = new Date(now.getTime() + 3_600_000).toISOString();

function dueRecord(brief: BenchBrief, channel = "webhook"): [string, string] {
  const body = { reference: brief.reference, folder: brief.folder, channel, dueAt: later };
  return [`deliveries/due/${brief.reference}.${channel}.json`, `${JSON.stringify(body)}\n`];
}

function failedRecord(brief: BenchBrief): [string, string] {
  const body = {
    reference: brief.reference,
    folder: brief.folder,
    channel: "email",
    at: now.toISOString(),
    error: "550 mailbox unavailable",
  };
  return [`deliveries/failed/${brief.reference}.email.json`, `${JSON.stringify(body)}\n`];
}

/** No channel, no retry: a round that finds nothing ready makes no attempt whatever it is given. */
function deliveriesOver(store: ObjectStore): Deliveries {
  return new Deliveries({
    store,
    channels: [],
    acknowledger: null,
    notifyTimeoutMs: 5_000,
    retrySchedule: [],
    alerts: { async gaveUp() {} },
    publisher: null,
  });
}

interface Row {
  what: string;
  ms: number;
  detail: string;
}

/** The median of `runs` timings (the first run warms the process, as a server's would be). */
async function timed(what: string, work: () => Promise<string>, runs = 5): Promise<Row> {
  const times: number[] = [];
  let detail = "";
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    detail = await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { what, ms: times[Math.floor(times.length / 2)] ?? Infinity, detail };
}

async function measure(
  name: string,
  store: ObjectStore,
  addDue: (records: [string, string][]) => Promise<void>,
  moreDue: [string, string][],
  targetMs: number | null,
): Promise<Row[]> {
  const deliveries = deliveriesOver(store);
  const round = async () => {
    const counts = await deliveries.runDue({ now });
    return `${counts.attempted} attempted`;
  };
  const rows = [
    await timed(`scheduler round (runDue), ${DUE} due`, round),
    await timed(`listDue, ${DUE} due`, async () => `${(await listDue(store)).length} records`),
    await timed("list marks (pendingReferences)", async () => {
      const pending = await pendingReferences(store);
      return `${pending.retrying.size} retrying, ${pending.failed.size} failed`;
    }),
    // A fresh wrapper each run: the health count's cache is per store object.
    await timed("health count (pendingCounts, uncached)", async () => {
      const counts = await pendingCounts(Object.create(store) as ObjectStore);
      return `${counts.retrying} retrying, ${counts.failed} failed`;
    }),
    await timed("list --delivery failed (pendingBriefs)", async () => {
      return `${(await pendingBriefs(store, "failed")).length} briefs read`;
    }),
  ];
  await addDue(moreDue);
  rows.push(await timed(`scheduler round (runDue), ${DUE + moreDue.length} due`, round));
  console.log(`\n${name}`);
  for (const row of rows) {
    console.log(`  ${row.what.padEnd(44)} ${row.ms.toFixed(1).padStart(8)} ms   ${row.detail}`);
  }
  if (targetMs !== null) {
    const met = (rows[0]?.ms ?? Infinity) < targetMs;
    console.log(`  target: the round with ${DUE} due < ${targetMs} ms ${met ? "met" : "MISSED"}`);
    if (!met) process.exitCode = 1;
  }
  return rows;
}

async function main(): Promise<void> {
  console.log(
    `Deliveries: ${BRIEFS} briefs stored, ${DUE} due and ${FAILED} failed (then ${MORE_DUE} more due); ` +
      `Blob calls held back ${LATENCY_MS} ms each. Median of 5 runs.`,
  );
  const briefs = Array.from({ length: BRIEFS }, (_, index) => briefFiles(index));
  const step = Math.max(1, Math.floor(BRIEFS / (DUE + FAILED + MORE_DUE)));
  const pick = (index: number) => briefs[(index * step) % briefs.length] as BenchBrief;
  const records = [
    ...Array.from({ length: DUE }, (_, index) => dueRecord(pick(index))),
    ...Array.from({ length: FAILED }, (_, index) => failedRecord(pick(DUE + index))),
  ];
  const moreDue = Array.from({ length: MORE_DUE }, (_, index) =>
    dueRecord(pick(DUE + FAILED + index), "slack"),
  );

  const dir = await tempDir("intake-bench-deliveries-");
  try {
    const started = performance.now();
    await writeBriefsTo(dir, briefs);
    console.log(`(wrote the filesystem inbox in ${((performance.now() - started) / 1000).toFixed(0)} s)`);
    const store = new FilesystemStore(dir);
    const put = async (more: [string, string][]) => {
      for (const [path, body] of more) await store.put(path, body, "application/json");
    };
    await put(records);
    await measure("Filesystem inbox", store, put, moreDue, ROUND_TARGET_MS);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const standIn = await startBlobStandIn();
  process.env.VERCEL_BLOB_API_URL = standIn.apiUrl;
  const restore = routeBlobStorageTo(standIn.origin);
  try {
    putBriefsIn(standIn, briefs);
    const store = withLatency(createStore(parseConfig({ BLOB_READ_WRITE_TOKEN: standIn.token })), LATENCY_MS);
    const put = async (more: [string, string][]) => {
      for (let start = 0; start < more.length; start += 50) {
        const batch = more.slice(start, start + 50);
        await Promise.all(batch.map(([path, body]) => store.put(path, body, "application/json")));
      }
    };
    await put(records);
    await measure(`Vercel Blob inbox (stand-in, ${LATENCY_MS} ms per call)`, store, put, moreDue, null);
  } finally {
    restore();
    await standIn.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
