/**
 * npm run bench:inbox [-- --briefs 50000 --latency 20 --subscribers 50000 --only briefs|subscribers]
 *   (also the last step of npm run bench)
 *
 * The inbox on the web at scale (issues 20, 33): the same lib/ops code the /inbox page runs
 * (searchBriefs: the list's first page with its counts, a search, a status filter), over briefs
 * spread over ten months, on the filesystem inbox and on the Vercel Blob inbox (the stand-in,
 * through the real SDK, every store call held back by `--latency` ms first, as a remote store
 * answers). Measured: the first page with no index at all (cold) and how long the whole rebuild
 * then takes (views going on as a person reloading would), warm (median of three), a search and a
 * status filter (its first page and a deep one), a status change in an old month (median of three:
 * `state.json`, the month's changes, the catalog's counts and the audit entry, as the route's
 * action makes them once it has found the brief), the first page after it, folding the month's
 * changes into its index (done after the answer once enough have piled up), and new arrivals.
 * Each line says how many store calls it made. Prints the targets, met or missed.
 * Then `/inbox/subscribers` over `--subscribers` records on the filesystem inbox (issue 45; see
 * subscribers.ts). `--only` runs one of the two.
 */
import { rm } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parseConfig } from "../../lib/config";
import { createStore, type ObjectStore } from "../../lib/store";
import { FilesystemStore } from "../../lib/store/filesystem";
import { changeStatus, findBrief, NO_FILTER, parseFilter, searchBriefs } from "../../lib/ops";
import { readCatalog } from "../../lib/ops/catalog";
import { foldMonthChanges } from "../../lib/ops/month-index";
import { monthNumber } from "../../lib/ops/reader";
import { coverageOf } from "../../lib/ops/rebuild";
import { routeBlobStorageTo } from "../../tests/support/blob-routing.mjs";
import { startBlobStandIn } from "../../tests/support/blob-standin";
import { tempDir } from "../../tests/support/server";
import { measureSubscribers, writeSubscribersTo } from "./subscribers";
import {
  type BenchBrief,
  briefFiles,
  countingCalls,
  putBriefsIn,
  withLatency,
  writeBriefsTo,
} from "./stored-briefs";

const { values: flags } = parseArgs({
  options: {
    briefs: { type: "string", default: "5000" },
    latency: { type: "string", default: "20" },
    subscribers: { type: "string", default: "50000" },
    only: { type: "string" },
  },
});
const BRIEFS = Number(flags.briefs);
const LATENCY_MS = Number(flags.latency);
const NEEDLE = "zanzibar-lighthouse";
const NOW = new Date("2026-11-23T12:00:00.000Z");
const ARRIVALS = 20;
/**
 * A deep page of the status filter (100 at 50,000 briefs, 10 at 5,000): over half way down the
 * handled briefs (a sixth of all), in the sixth month back.
 */
const DEEP_PAGE = Math.max(2, Math.round(BRIEFS / 500));

interface Row {
  what: string;
  ms: number;
  /** CPU time of this process (the code, and on Blob the SDK and the stand-in serving it). */
  cpuMs: number;
  calls: number;
  detail: string;
}

interface Targets {
  pageWarm: number;
  search: number;
  cold: number | null;
  /** A status change (issue 45: 300 ms at 50,000 briefs on the filesystem inbox). */
  statusChange: number | null;
}

async function timed(what: string, calls: () => number, work: () => Promise<string>): Promise<Row> {
  const before = calls();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const detail = await work();
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  return { what, ms: performance.now() - started, cpuMs, calls: calls() - before, detail };
}

/** The median of three runs, each a fresh view. */
async function median(what: string, calls: () => number, work: () => Promise<string>): Promise<Row> {
  const runs = [
    await timed(what, calls, work),
    await timed(what, calls, work),
    await timed(what, calls, work),
  ];
  return runs.sort((a, b) => a.ms - b.ms)[1]!;
}

async function untilIndexed(store: ObjectStore, started: number, view: () => Promise<string>): Promise<Row> {
  let lastView = performance.now();
  let failed = 0;
  for (;;) {
    // A loaded machine may miss the Blob driver's 8 s for a call: counted, and tried again.
    const catalog = await readCatalog(store, "briefs").catch(() => void failed++);
    if (catalog && coverageOf(catalog).complete) break;
    // A person reloading every 10 s: each view indexes within its budget and starts a background run.
    if (performance.now() - lastView > 10_000) {
      await view().catch(() => void failed++);
      lastView = performance.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const detail = failed > 0 ? `${failed} views or reads failed on the way (store unavailable)` : "";
  return {
    what: "whole history indexed (from cold)",
    ms: performance.now() - started,
    cpuMs: 0,
    calls: 0,
    detail,
  };
}

async function measure(
  name: string,
  raw: ObjectStore,
  briefs: readonly BenchBrief[],
  targets: Targets,
  addArrivals: (list: BenchBrief[]) => Promise<void>,
) {
  const { store, calls } = countingCalls(raw);
  const page = async () => {
    const result = await searchBriefs(store, "briefs", NO_FILTER, { now: NOW });
    const partial = result.coverage.complete
      ? ""
      : ` (partial: from ${result.coverage.from}, ${result.coverage.monthsLeft} months left)`;
    return `${result.briefs.length} of ${result.total}; new ${result.counts.new}, handled ${result.counts.handled}, archived ${result.counts.archived}${partial}`;
  };
  const started = performance.now();
  const rows = [await timed("first page, cold (no index)", calls, page)];
  rows.push(await untilIndexed(store, started, page));
  rows.push(await median("first page, warm", calls, page));
  rows.push(
    await median(`search "${NEEDLE}", warm`, calls, async () => {
      const result = await searchBriefs(store, "briefs", parseFilter({ q: NEEDLE }), { now: NOW });
      return `${result.total} found`;
    }),
  );
  // The status filter alone: its first page, and a deep one (read newest first down to its offset).
  for (const page of [1, DEEP_PAGE]) {
    rows.push(
      await median(`status handled, page ${page}, warm`, calls, async () => {
        const filter = parseFilter({ status: "handled" });
        const result = await searchBriefs(store, "briefs", filter, { now: NOW, page });
        return `${result.briefs.length} of ${result.total} found, page ${result.page} of ${result.pages}`;
      }),
    );
  }
  const oldest = briefs[0]!;
  let brief = (await findBrief(store, oldest.reference, NOW))!;
  // Each run a real change (the brief starts `handled`: every third bench brief has a state).
  const statuses = ["archived", "new", "archived"] as const;
  let run = 0;
  rows.push(
    await median(`status change, ${BRIEFS} briefs`, calls, async () => {
      const status = statuses[run++ % statuses.length]!;
      const { state } = await changeStatus({ store }, brief, status, { actor: "bench", now: NOW });
      brief = { ...brief, state };
      return `now ${state.status} (state, the month's changes, counts, audit)`;
    }),
  );
  rows.push(await timed("first page after a status change (January)", calls, page));
  rows.push(
    await timed("folding January's changes into its index", calls, async () => {
      await foldMonthChanges(store, "briefs", monthNumber(2026, 1));
      return "after the answer, once 200 changes have piled up";
    }),
  );
  const arrivals = Array.from({ length: ARRIVALS }, (_, index) => briefFiles(BRIEFS + index, -1, "", NOW));
  await addArrivals(arrivals);
  rows.push(await timed(`first page after ${ARRIVALS} arrivals`, calls, page));
  rows.push(await timed("first page, warm again", calls, page));

  console.log(`\n${name}`);
  for (const row of rows) {
    const calls = row.calls > 0 ? `${row.calls} calls` : "";
    const cpu = row.cpuMs > 0 ? `cpu ${row.cpuMs.toFixed(0)} ms` : "";
    console.log(
      `  ${row.what.padEnd(44)} ${row.ms.toFixed(0).padStart(7)} ms ${cpu.padStart(14)} ${calls.padStart(12)}   ${row.detail}`,
    );
  }
  const ms = (what: string) => rows.find((row) => row.what.startsWith(what))?.ms ?? Infinity;
  const verdict = (value: number, limit: number) =>
    `${value < limit ? "met" : "MISSED"} (${value.toFixed(0)} ms < ${limit} ms)`;
  // The warm target: the first page warm, and after a status change (nothing to write). After
  // arrivals a view reads them and writes the month's index and the counts (durable writes): shown, not held to it.
  const worstPage = Math.max(
    ...rows
      .filter((row) => row.what.startsWith("first page") && !/cold|arrivals/.test(row.what))
      .map((row) => row.ms),
  );
  console.log(
    `  targets: first page warm ${verdict(worstPage, targets.pageWarm)}; search ${verdict(ms("search"), targets.search)}` +
      (targets.cold === null ? "" : `; cold first page ${verdict(ms("first page, cold"), targets.cold)}`) +
      (targets.statusChange === null
        ? ""
        : `; status change, ${BRIEFS} briefs ${verdict(ms("status change"), targets.statusChange)}`),
  );
}

async function subscribersScenario(): Promise<void> {
  const count = Number(flags.subscribers);
  const dir = await tempDir("intake-bench-subscribers-");
  try {
    const writing = performance.now();
    await writeSubscribersTo(dir, count);
    console.log(
      `\n(${count} subscribers written to a filesystem inbox in ${((performance.now() - writing) / 1000).toFixed(0)} s)`,
    );
    await measureSubscribers(dir, count);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (flags.only === "subscribers") return subscribersScenario();
  console.log(
    `The inbox on the web: ${BRIEFS} briefs over ten months; Blob calls held back ${LATENCY_MS} ms each.`,
  );
  const generating = performance.now();
  const briefs = Array.from({ length: BRIEFS }, (_, index) => briefFiles(index, BRIEFS - 7, NEEDLE));
  const dir = await tempDir("intake-bench-inbox-");
  try {
    await writeBriefsTo(dir, briefs);
    console.log(
      `(${BRIEFS} briefs written to a filesystem inbox in ${((performance.now() - generating) / 1000).toFixed(0)} s)`,
    );
    await measure(
      "Filesystem inbox",
      new FilesystemStore(dir),
      briefs,
      { pageWarm: 300, search: 1_000, cold: null, statusChange: 300 },
      (list) => writeBriefsTo(dir, list),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const standIn = await startBlobStandIn();
  process.env.VERCEL_BLOB_API_URL = standIn.apiUrl;
  const restore = routeBlobStorageTo(standIn.origin);
  try {
    putBriefsIn(standIn, briefs);
    const store = withLatency(createStore(parseConfig({ BLOB_READ_WRITE_TOKEN: standIn.token })), LATENCY_MS);
    await measure(
      `Vercel Blob inbox (stand-in, ${LATENCY_MS} ms per call)`,
      store,
      briefs,
      { pageWarm: 1_000, search: 2_000, cold: 10_000, statusChange: null },
      async (list) => putBriefsIn(standIn, list),
    );
  } finally {
    restore();
    await standIn.close();
  }
  if (flags.only !== "briefs") await subscribersScenario();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
