import type { Folder } from "../briefs";
import { type ObjectStore, type StoreCallOptions, updateObject } from "../store";
import { markStale } from "./catalog";
import { asciiJson, indexDocumentLine } from "./index-document";
import { monthPath } from "./reader";
import { BRIEF_STATUSES, type BriefStatus } from "./state";
import {
  type BriefSummary,
  countByStatus,
  INDEX_VERSION,
  isSummary,
  mergeSummary,
  type MonthIndex,
  type Tombstone,
  TOMBSTONE_MS,
  tombstoneKey,
} from "./summary";

/**
 * A month's index in the store: the index itself, `index/<kind>/YYYY/MM.json` (every summary of the
 * month, a few MB at 5,000 briefs), and beside it its recent changes, `YYYY/MM.changes.json` (issue
 * 45): the summaries a status change or a note has changed since the index was last written. A
 * status change writes only the small changes document, so it costs what it changes and not the
 * month (rewriting the index whole took a second at 50,000 briefs).
 *
 * Readers merge the two (`mergeSummary`, each part from whichever saw more of its file). A change
 * applies only to a brief the index holds: the index alone says which briefs a month has, so a
 * change can neither bring back an erased brief nor make a brief the listing no longer shows
 * reappear. Every write of the index folds the changes into it first and then removes from the
 * changes what it folded; the changes are folded too once there are `FOLD_AT` of them.
 *
 * The index's document is three JSON lines: its version and serial; each brief's status with its
 * state serial; the summaries and tombstones. A status change reads the first two only (a tenth of
 * the bytes, streamed and left there) to count the month with its change, and readers skip the
 * second.
 *
 * The catalog orders a month's counts by their serial. Here that is the sum of the two documents'
 * serials (each grows with every write of its document), and each writer takes the counts it
 * records from the document it wrote and a read of the other made after that write. Whoever writes
 * last therefore records the counts of what is stored with a serial no earlier record reaches, so
 * an older count never replaces it, as with one document.
 */

/** Changes kept before they are folded into the index: a few hundred KB to rewrite at most. */
export const FOLD_AT = 200;

export interface MonthChanges {
  serial: number;
  entries: BriefSummary[];
}

export function indexPath(kind: Folder, month: number): string {
  return `index/${kind}/${monthPath(month)}.json`;
}

export function changesPath(kind: Folder, month: number): string {
  return `index/${kind}/${monthPath(month)}.changes.json`;
}

/** Each brief of the index: its folder, status and state serial (`mergeSummary` takes the larger). */
type IndexStatuses = [folder: string, status: BriefStatus, stateSerial: number][];

/** The index's document (see the module's comment), with a fresh revision. */
function indexDocument(index: MonthIndex): string {
  const statuses: IndexStatuses = index.entries.map((entry) => [
    entry.folder,
    entry.status,
    entry.stateSerial,
  ]);
  return (
    indexDocumentLine(INDEX_VERSION, { serial: index.serial }) +
    `${asciiJson({ statuses })}\n${asciiJson({ entries: index.entries, erased: index.erased })}\n`
  );
}

/** The first line's serial, or `null` when it is not of this version. */
function parseSerial(line: string): number | null {
  const doc = JSON.parse(line) as Record<string, unknown>;
  return doc.version === INDEX_VERSION && typeof doc.serial === "number" ? doc.serial : null;
}

/**
 * A month index's bytes, or `null` when they are not one of this version. Checked by shape, not by
 * schema: a view reads every month's entries for a search, and a full schema check of 50,000 was
 * what it spent most on. A document that fails the check is rebuilt, never half used.
 */
export function parseMonthIndex(bytes: Uint8Array | null): MonthIndex | null {
  if (bytes === null) return null;
  try {
    const text = Buffer.from(bytes).toString("utf8");
    const first = text.indexOf("\n");
    const second = text.indexOf("\n", first + 1);
    if (first < 0 || second < 0) return null;
    const serial = parseSerial(text.slice(0, first));
    if (serial === null) return null;
    const doc = JSON.parse(text.slice(second + 1)) as Record<string, unknown>;
    if (!Array.isArray(doc.entries) || !doc.entries.every(isSummary)) return null;
    const erased = Array.isArray(doc.erased) ? (doc.erased as Tombstone[]) : [];
    return { serial, entries: doc.entries, erased };
  } catch {
    return null;
  }
}

/**
 * The index's serial and statuses: its first two lines, read from the start of the stored
 * document and the rest left unread. `null` when there is no index of this version.
 */
async function readIndexStatuses(
  store: ObjectStore,
  kind: Folder,
  month: number,
  options?: StoreCallOptions,
): Promise<{ serial: number; statuses: IndexStatuses } | null> {
  const stream = await store.getStream(indexPath(kind, month), options);
  if (stream === null) return null;
  const reader = stream.body.getReader();
  const chunks: Buffer[] = [];
  try {
    let lines = 0;
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const chunk = Buffer.from(read.value);
      let end = -1;
      for (let at = chunk.indexOf(10); at >= 0 && lines < 2; at = chunk.indexOf(10, at + 1)) {
        lines++;
        end = at;
      }
      chunks.push(lines < 2 ? chunk : chunk.subarray(0, end));
      if (lines < 2) continue;
      const [first = "", second = ""] = Buffer.concat(chunks).toString("utf8").split("\n");
      const serial = parseSerial(first);
      const { statuses } = JSON.parse(second) as { statuses?: unknown };
      if (serial === null || !Array.isArray(statuses)) return null;
      return { serial, statuses: statuses as IndexStatuses };
    }
    return null;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** The month's counts by status: the index's statuses with its changes applied, as `withChanges` does. */
function countWithChanges(statuses: IndexStatuses, changes: MonthChanges): Record<BriefStatus, number> {
  const changed = new Map(changes.entries.map((entry) => [entry.folder, entry]));
  const counts = countByStatus([]);
  for (const [folder, status, stateSerial] of statuses) {
    const change = changed.get(folder);
    const shown = change && !(stateSerial > change.stateSerial) ? change.status : status;
    if ((BRIEF_STATUSES as readonly string[]).includes(shown)) counts[shown]++;
  }
  return counts;
}

/** The changes' bytes, or `null` when there are none or they are not of this version (then they are started again). */
export function parseMonthChanges(bytes: Uint8Array | null): MonthChanges | null {
  if (bytes === null) return null;
  try {
    const doc = JSON.parse(Buffer.from(bytes).toString("utf8")) as Record<string, unknown>;
    if (doc.version !== INDEX_VERSION || typeof doc.serial !== "number") return null;
    if (!Array.isArray(doc.entries) || !doc.entries.every(isSummary)) return null;
    return { serial: doc.serial, entries: doc.entries };
  } catch {
    return null;
  }
}

/** The index as readers see it: its entries with the changes to them, and the two serials' sum. */
export function withChanges(index: MonthIndex, changes: MonthChanges | null): MonthIndex {
  const serial = index.serial + (changes?.serial ?? 0);
  if (!changes || changes.entries.length === 0) return { ...index, serial };
  const changed = new Map(changes.entries.map((entry) => [entry.folder, entry]));
  const entries = index.entries.map((entry) => {
    const change = changed.get(entry.folder);
    return change ? mergeSummary(entry, change) : entry;
  });
  return { serial, entries, erased: index.erased };
}

/** Reads a month's index with its changes: `null` when there is none, or it is damaged or of another version. */
export async function readMonthIndex(
  store: ObjectStore,
  kind: Folder,
  month: number,
  options?: StoreCallOptions,
): Promise<MonthIndex | null> {
  const [index, changes] = await Promise.all([
    store.get(indexPath(kind, month), options),
    store.get(changesPath(kind, month), options),
  ]);
  const parsed = parseMonthIndex(index);
  return parsed === null ? null : withChanges(parsed, parseMonthChanges(changes));
}

/**
 * What a change makes of a month's entries (by folder) and tombstones (by `tombstoneKey`); `false`:
 * nothing changed, nothing is written.
 */
export type IndexChange = (entries: Map<string, BriefSummary>, erased: Map<string, number>) => boolean;

/** The same summary as the changes held it when they were folded: nothing written to it since. */
function sameChange(a: BriefSummary, b: BriefSummary): boolean {
  return (
    a.stateSerial === b.stateSerial && a.deliverySerial === b.deliverySerial && a.indexedAt === b.indexedAt
  );
}

/**
 * After the index was written: its changes without those it folded (unless changed again since)
 * and without any for a brief it does not hold (a change never adds a brief, and one for a brief
 * it will hold later is read from the brief's own files then). Answers the changes as they are now.
 */
async function clearFolded(
  store: ObjectStore,
  kind: Folder,
  month: number,
  index: MonthIndex,
  folded: readonly BriefSummary[],
  options: StoreCallOptions,
): Promise<MonthChanges | null> {
  const held = new Set(index.entries.map((entry) => entry.folder));
  const byFolder = new Map(folded.map((entry) => [entry.folder, entry]));
  let damaged = false;
  const changes = await updateObject<MonthChanges | null>(
    store,
    changesPath(kind, month),
    "application/json",
    (bytes) => {
      const current = parseMonthChanges(bytes);
      damaged = bytes !== null && current === null;
      if (current === null) return bytes === null ? { result: null } : writeChanges(null, []);
      const kept = current.entries.filter((entry) => {
        const done = byFolder.get(entry.folder);
        return held.has(entry.folder) && !(done && sameChange(done, entry));
      });
      if (kept.length === current.entries.length) return { result: current };
      return writeChanges(current, kept);
    },
    options,
  );
  // Changes of another version, or damaged, are started again; what they held, the month's check finds.
  if (damaged) await markStale(store, kind, month, "its changes could not be read");
  return changes;
}

function writeChanges(current: MonthChanges | null, entries: BriefSummary[]) {
  const written: MonthChanges = { serial: Math.max((current?.serial ?? 0) + 1, Date.now()), entries };
  return { write: indexDocumentLine(INDEX_VERSION, written), result: written };
}

/**
 * Changes a month's index with a conditional write (again on a lost race), its changes folded in
 * first, and answers the index as readers now see it (or as it was, when nothing changed).
 * `create`: what to do when there is no index of this version: start an empty one (a view that
 * has read the whole month), or leave it (`false`: a write-time update, which must not make a month
 * of one brief look indexed): then `null`.
 */
export async function changeMonthIndex(
  store: ObjectStore,
  kind: Folder,
  month: number,
  change: IndexChange,
  { create, ...options }: StoreCallOptions & { create: boolean },
): Promise<MonthIndex | null> {
  const pending = parseMonthChanges(await store.get(changesPath(kind, month), options));
  let folded: BriefSummary[] = [];
  const index = await updateObject<MonthIndex | null>(
    store,
    indexPath(kind, month),
    "application/json",
    (bytes) => {
      const current = parseMonthIndex(bytes);
      if (current === null && !create) return { result: null };
      const now = Date.now();
      const entries = new Map((current?.entries ?? []).map((entry) => [entry.folder, entry]));
      const erased = new Map(
        (current?.erased ?? [])
          .filter((tomb) => now - tomb.at < TOMBSTONE_MS)
          .map((tomb) => [tomb.key, tomb.at]),
      );
      folded = [];
      for (const entry of pending?.entries ?? []) {
        const known = entries.get(entry.folder);
        if (!known || erased.has(tombstoneKey(entry.folder))) continue;
        entries.set(entry.folder, mergeSummary(known, entry));
        folded.push(entry);
      }
      const changed = change(entries, erased) || current === null || folded.length > 0;
      if (!changed && current !== null) return { result: current };
      for (const folder of [...entries.keys()]) if (erased.has(tombstoneKey(folder))) entries.delete(folder);
      const written: MonthIndex = {
        serial: Math.max((current?.serial ?? 0) + 1, now),
        entries: [...entries.values()],
        erased: [...erased].map(([key, at]) => ({ key, at })),
      };
      return { write: indexDocument(written), result: written };
    },
    options,
  );
  if (index === null) return null;
  return withChanges(index, await clearFolded(store, kind, month, index, folded, options));
}

/**
 * Records a brief's new summary (after a status change or a note) in its month's changes, and
 * answers the month's counts as readers now see them, with their serial: `null` when the month has
 * no index of this version (the change is then left to the rebuild, which reads the brief).
 * Folding the changes into the index, once there are `FOLD_AT`, is left to the caller (`fold`), so
 * that it can put it off until after its answer.
 */
export async function recordMonthChange(
  store: ObjectStore,
  kind: Folder,
  month: number,
  summary: BriefSummary,
  options: StoreCallOptions = {},
): Promise<{ counts: { counts: Record<BriefStatus, number>; serial: number } | null; fold: boolean }> {
  let damaged = false;
  const changes = await updateObject<MonthChanges>(
    store,
    changesPath(kind, month),
    "application/json",
    (bytes) => {
      const current = parseMonthChanges(bytes);
      damaged = bytes !== null && current === null;
      const others = (current?.entries ?? []).filter((entry) => entry.folder !== summary.folder);
      const known = current?.entries.find((entry) => entry.folder === summary.folder);
      return writeChanges(current, [...others, mergeSummary(known, summary)]);
    },
    options,
  );
  if (damaged) await markStale(store, kind, month, "its changes could not be read");
  // Read after the changes were written: see the module's comment on the serial.
  const index = await readIndexStatuses(store, kind, month, options);
  if (index === null) return { counts: null, fold: false };
  return {
    counts: { counts: countWithChanges(index.statuses, changes), serial: index.serial + changes.serial },
    fold: changes.entries.length >= FOLD_AT,
  };
}

/** Folds a month's changes into its index (nothing when it has none, or no index of this version). */
export function foldMonthChanges(
  store: ObjectStore,
  kind: Folder,
  month: number,
  options: StoreCallOptions = {},
): Promise<MonthIndex | null> {
  return changeMonthIndex(store, kind, month, () => false, { ...options, create: false });
}

/**
 * The folder `month`'s index names for `reference` (its day is in the folder's path), from the
 * index's statuses alone; `null` when it names none, or there is no index of this version.
 */
export async function indexedFolder(
  store: ObjectStore,
  kind: Folder,
  month: number,
  reference: string,
): Promise<string | null> {
  const index = await readIndexStatuses(store, kind, month);
  const suffix = `/${reference}`;
  return index?.statuses.find(([folder]) => folder.endsWith(suffix))?.[0] ?? null;
}
