import type { Folder } from "../briefs";
import type { ObjectStore, StoreCallOptions } from "../store";
import { changeCatalog } from "./catalog";
import { InboxRecordError } from "./errors";
import { type BriefFolder, listDay, listMonth, mapLimit, monthPath, readBrief } from "./reader";
import { changeMonthIndex, readMonthIndex } from "./month-index";
import { type BriefSummary, countByStatus, type MonthIndex, summarize, tombstoneKey } from "./summary";

/**
 * Checking a month's index against the store's listing: the whole month (a rebuild, a month marked
 * stale, an index lost) or some of its days (the days since the catalog's watermark, where
 * arrivals are found). A folder whose fingerprint the index holds is taken from it; any other is
 * read from its own files; an entry the listing no longer shows goes, unless it was written after
 * the listing began (a brief moved there meanwhile). The index is written only when something
 * changed, and the catalog gets the month's counts.
 */

/**
 * Briefs read at once, each its three files at once: enough to hide a remote store's latency, few
 * enough that a loaded machine answers each call within the Blob driver's 8 s.
 */
const READ_CONCURRENCY = 24;

export interface CheckOptions extends StoreCallOptions {
  /** Only these days (`YYYY-MM-DD`) of the month; absent: all of it. */
  days?: readonly string[];
  /** The month's index as already read (saves reading it again); `undefined`: read it. */
  known?: MonthIndex | null;
  /** The folders of `days` as already listed (a rebuild lists its month once for all its steps). */
  folders?: readonly BriefFolder[];
  /**
   * For the catalog: the oldest day indexed of a month a rebuild has done only in part (`null`: all
   * of it; absent: as the catalog says).
   */
  from?: string | null;
  onProblem?: (problem: InboxRecordError) => void;
}

async function listed(
  store: ObjectStore,
  kind: Folder,
  month: number,
  options: CheckOptions,
): Promise<BriefFolder[]> {
  if (!options.days) return (await listMonth(store, kind, month, options)).flat();
  const days = await mapLimit(options.days, 8, (day) => listDay(store, kind, day, options));
  return days.flat();
}

/** Checks `month` (or some of its days) and answers its index as written. */
export async function checkMonth(
  store: ObjectStore,
  kind: Folder,
  month: number,
  options: CheckOptions = {},
): Promise<MonthIndex> {
  const startedAt = Date.now();
  const [folders, index] = await Promise.all([
    listed(store, kind, month, options),
    options.known === undefined ? readMonthIndex(store, kind, month, options) : options.known,
  ]);
  const known = new Map((index?.entries ?? []).map((entry) => [entry.folder, entry]));
  const fresh = await mapLimit(folders, READ_CONCURRENCY, async (entry): Promise<BriefSummary | null> => {
    const indexed = known.get(entry.folder);
    if (indexed && indexed.fingerprint === entry.fingerprint) return null;
    try {
      const brief = await readBrief(store, kind, entry);
      return brief === null ? null : summarize(brief, entry.fingerprint, startedAt);
    } catch (error) {
      if (!(error instanceof InboxRecordError)) throw error;
      options.onProblem?.(error);
      return null;
    }
  });
  const seen = new Set(folders.map((entry) => entry.folder));
  const inScope = (summary: BriefSummary) =>
    !options.days ||
    options.days.includes(summary.receivedAt.slice(0, 10)) ||
    options.days.includes(dayOf(summary.folder));
  const gone = [...known.values()].filter((entry) => inScope(entry) && !seen.has(entry.folder));
  if (index !== null && fresh.every((summary) => summary === null) && gone.length === 0) {
    if (options.from !== undefined) await recordCounts(store, kind, month, index, options.from);
    return index;
  }
  const written = await changeMonthIndex(
    store,
    kind,
    month,
    (entries, erased) => {
      let changed = false;
      for (const summary of fresh) {
        if (summary === null || erased.has(tombstoneKey(summary.folder))) continue;
        entries.set(summary.folder, { ...mergeKeepingNewest(entries.get(summary.folder), summary) });
        changed = true;
      }
      for (const entry of [...entries.values()]) {
        if (inScope(entry) && !seen.has(entry.folder) && entry.indexedAt < startedAt) {
          entries.delete(entry.folder);
          changed = true;
        }
      }
      return changed;
    },
    { ...options, create: true },
  );
  const result = written ?? { serial: 0, entries: [], erased: [] };
  await recordCounts(store, kind, month, result, options.from);
  return result;
}

/** `briefs/YYYY/MM/DD/<reference>` -> `YYYY-MM-DD`. */
function dayOf(folder: string): string {
  return folder.split("/").slice(1, 4).join("-");
}

function mergeKeepingNewest(known: BriefSummary | undefined, read: BriefSummary): BriefSummary {
  if (!known) return read;
  const state = known.stateSerial > read.stateSerial ? known : read;
  const delivery = known.deliverySerial > read.deliverySerial ? known : read;
  // A part kept from the index (written since the read) leaves the fingerprint unknown: read again next time.
  const fingerprint = state === read && delivery === read ? read.fingerprint : "";
  return {
    ...read,
    status: state.status,
    stateSerial: state.stateSerial,
    delivery: delivery.delivery,
    deliverySerial: delivery.deliverySerial,
    fingerprint,
  };
}

/** The catalog takes a month's counts from its index as written (`from`: see `CheckOptions`). */
export async function recordCounts(
  store: ObjectStore,
  kind: Folder,
  month: number,
  index: MonthIndex,
  from?: string | null,
): Promise<void> {
  const count = { counts: countByStatus(index.entries), serial: index.serial, from };
  await changeCatalog(store, kind, { months: { [monthPath(month)]: count } });
}
