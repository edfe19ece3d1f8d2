/**
 * npm run bench:inbox [-- --briefs 5000 --latency 20]   (also the last step of npm run bench)
 *
 * The inbox on the web at scale: the same lib/ops code the /inbox page runs (searchBriefs: the
 * list's first page with its counts, a search, a status filter), over 5,000 briefs spread over ten
 * months, on the filesystem inbox and on the Vercel Blob inbox (the stand-in, through the real SDK,
 * every store call held back by `--latency` ms first, as a remote store answers). Each is measured
 * cold (no month index: the first view after a deploy, or after the index was lost) and warm, and
 * after one brief's status changed (its month's index is stale, and only that brief is read again).
 * Prints a table; the targets are the (first page < 1 s on the filesystem, a search < 2 s,
 * both < 3 s on Blob, warm).
 */
import { rm } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parseConfig } from "../../lib/config";
import { createStore, type ObjectStore } from "../../lib/store";
import { FilesystemStore } from "../../lib/store/filesystem";
import { NO_FILTER, parseFilter, searchBriefs, setStatus } from "../../lib/ops";
import { routeBlobStorageTo } from "../../tests/support/blob-routing.mjs";
import { startBlobStandIn } from "../../tests/support/blob-standin";
import { tempDir } from "../../tests/support/server";
import { briefFiles, putBriefsIn, withLatency, writeBriefsTo } from "./stored-briefs";

const { values: flags } = parseArgs({
  options: { briefs: { type: "string", default: "5000" }, latency: { type: "string", default: "20" } },
});
const BRIEFS = Number(flags.briefs);
const LATENCY_MS = Number(flags.latency);
const NEEDLE = "zanzibar-lighthouse";

async function timed(
  what: string,
  work: () => Promise<string>,
): Promise<{ what: string; ms: number; detail: string }> {
  const started = performance.now();
  const detail = await work();
  return { what, ms: performance.now() - started, detail };
}

async function measure(
  name: string,
  store: ObjectStore,
  folderOf: string,
  targetMs: { page: number; search: number },
) {
  const now = new Date("2026-11-23T12:00:00.000Z");
  const page = async () => {
    const result = await searchBriefs(store, "briefs", NO_FILTER, { now });
    return `${result.briefs.length} of ${result.total}; new ${result.counts.new}, handled ${result.counts.handled}, archived ${result.counts.archived}`;
  };
  const rows = [
    await timed("first page, cold (no index: builds it)", page),
    await timed("first page, warm", page),
    await timed(`search "${NEEDLE}", warm`, async () => {
      const result = await searchBriefs(store, "briefs", parseFilter({ q: NEEDLE }), { now });
      return `${result.total} found`;
    }),
    await timed("status handled, warm", async () => {
      const result = await searchBriefs(store, "briefs", parseFilter({ status: "handled" }), { now });
      return `${result.total} found`;
    }),
  ];
  await setStatus(store, folderOf, "archived", "bench", now);
  rows.push(await timed("first page after one status change", page));
  console.log(`\n${name}`);
  for (const row of rows) {
    console.log(`  ${row.what.padEnd(44)} ${row.ms.toFixed(0).padStart(6)} ms   ${row.detail}`);
  }
  const warm = rows[1]?.ms ?? Infinity;
  const search = rows[2]?.ms ?? Infinity;
  const changed = rows[4]?.ms ?? Infinity;
  console.log(
    `  targets: first page < ${targetMs.page} ms ${warm < targetMs.page && changed < targetMs.page ? "met" : "MISSED"}; ` +
      `search < ${targetMs.search} ms ${search < targetMs.search ? "met" : "MISSED"}`,
  );
}

async function main(): Promise<void> {
  console.log(
    `The inbox on the web: ${BRIEFS} briefs over ten months; Blob calls held back ${LATENCY_MS} ms each.`,
  );
  const briefs = Array.from({ length: BRIEFS }, (_, index) => briefFiles(index, BRIEFS - 7, NEEDLE));
  const someFolder = briefs[0]?.folder ?? "";

  const dir = await tempDir("intake-bench-inbox-");
  try {
    await writeBriefsTo(dir, briefs);
    await measure("Filesystem inbox", new FilesystemStore(dir), someFolder, { page: 1_000, search: 2_000 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const standIn = await startBlobStandIn();
  process.env.VERCEL_BLOB_API_URL = standIn.apiUrl;
  const restore = routeBlobStorageTo(standIn.origin);
  try {
    putBriefsIn(standIn, briefs);
    const store = withLatency(createStore(parseConfig({ BLOB_READ_WRITE_TOKEN: standIn.token })), LATENCY_MS);
    await measure(`Vercel Blob inbox (stand-in, ${LATENCY_MS} ms per call)`, store, someFolder, {
      page: 3_000,
      search: 3_000,
    });
  } finally {
    restore();
    await standIn.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
