import { randomBytes } from "node:crypto";
import type { Folder } from "../briefs";
import { type ObjectStore, type StoreCallOptions, updateObject } from "../store";
import { indexDocumentLine } from "./index-document";
import { monthNumber, monthPath } from "./reader";
import { BRIEF_STATUSES, type BriefStatus } from "./state";

/**
 * The catalog of one kind's index, `index/<briefs|spam>/catalog.json`: what the first page reads
 * instead of every month. Per indexed month its counts by status (with the serial of the month
 * index they were taken from, so an older count never replaces a newer one); the watermark, the day
 * from which arrivals are still looked for by listing; and the span a rebuild is to cover, newest
 * month first (months in it not yet counted are not yet indexed).
 *
 * Beside it, `index/<kind>/stale/YYYY-MM`: a month whose index a write could not update; the next
 * view checks that month against the store's listing and removes the mark.
 */

export interface MonthCount {
  counts: Record<BriefStatus, number>;
  serial: number;
  /** A month a rebuild has done in part: the oldest day (`YYYY-MM-DD`) indexed; the days before are not. */
  from?: string;
}

/** A month's counts to record: `from` `null` says the month is whole now; absent, it stays as it was. */
export interface MonthCountChange extends Omit<MonthCount, "from"> {
  from?: string | null;
}

export interface Catalog {
  /** `YYYY/MM` -> the month's counts: every month in here is indexed. */
  months: Record<string, MonthCount>;
  /** `YYYY-MM-DD`: days from this one on are listed by each view (arrivals are found there). */
  watermark: string;
  /** The months a rebuild covers (month numbers), oldest and newest. */
  span: { oldest: number; newest: number } | null;
}

// 1: the first catalog (issue 33); 2: over month indexes of version 4 (issue 45). Another version
// is rebuilt like a missing one.
const CATALOG_VERSION = 2;

export function catalogPath(kind: Folder): string {
  return `index/${kind}/catalog.json`;
}

export function staleMarkPrefix(kind: Folder): string {
  return `index/${kind}/stale/`;
}

/** `YYYY/MM` -> its month number. */
export function monthOfKey(key: string): number {
  return monthNumber(Number(key.slice(0, 4)), Number(key.slice(5, 7)));
}

function parseCatalog(bytes: Uint8Array | null): Catalog | null {
  if (bytes === null) return null;
  try {
    const doc = JSON.parse(Buffer.from(bytes).toString("utf8")) as Record<string, unknown> & Catalog;
    if (doc.version !== CATALOG_VERSION || typeof doc.watermark !== "string") return null;
    if (typeof doc.months !== "object" || doc.months === null) return null;
    for (const count of Object.values(doc.months)) {
      if (
        typeof count?.serial !== "number" ||
        BRIEF_STATUSES.some((s) => typeof count.counts?.[s] !== "number")
      ) {
        return null;
      }
    }
    return { months: doc.months, watermark: doc.watermark, span: doc.span ?? null };
  } catch {
    return null;
  }
}

export async function readCatalog(
  store: ObjectStore,
  kind: Folder,
  options?: StoreCallOptions,
): Promise<Catalog | null> {
  return parseCatalog(await store.get(catalogPath(kind), options));
}

/** What to change in the catalog: month counts (kept only when newer), a watermark (kept only when later). */
export interface CatalogChange {
  months?: Record<string, MonthCountChange>;
  /** Months no longer indexed (their index lost): counted again when rebuilt. */
  forget?: readonly number[];
  watermark?: string;
  /** A new catalog (a rebuild starting), written only where there is none of this version. */
  fresh?: Catalog;
}

/** Applies `change` with a conditional write; answers the catalog as it is afterwards. */
export async function changeCatalog(
  store: ObjectStore,
  kind: Folder,
  change: CatalogChange,
  options?: StoreCallOptions,
): Promise<Catalog | null> {
  return updateObject<Catalog | null>(
    store,
    catalogPath(kind),
    "application/json",
    (bytes) => {
      const current = parseCatalog(bytes);
      const next: Catalog | null = current
        ? { ...current, months: { ...current.months } }
        : (change.fresh ?? null);
      if (next === null) return { result: null };
      let changed = current === null;
      for (const [key, count] of Object.entries(change.months ?? {})) {
        const known = next.months[key];
        const from = count.from === undefined ? known?.from : (count.from ?? undefined);
        if (known && (known.serial > count.serial || (known.serial === count.serial && known.from === from)))
          continue;
        next.months[key] = {
          counts: count.counts,
          serial: count.serial,
          ...(from === undefined ? {} : { from }),
        };
        changed = true;
      }
      for (const month of change.forget ?? []) {
        if (next.months[monthPath(month)] === undefined) continue;
        delete next.months[monthPath(month)];
        changed = true;
      }
      if (change.watermark && change.watermark > next.watermark) {
        next.watermark = change.watermark;
        changed = true;
      }
      if (!changed) return { result: next };
      return { write: indexDocumentLine(CATALOG_VERSION, next), result: next };
    },
    options,
  );
}

/** Marks a month stale: its index may not hold a write's change. A mark that cannot be written is logged. */
export async function markStale(store: ObjectStore, kind: Folder, month: number, why: string): Promise<void> {
  const path = `${staleMarkPrefix(kind)}${monthPath(month).replace("/", "-")}`;
  try {
    await store.put(path, `${randomBytes(9).toString("hex")}\n`, "text/plain");
    console.warn(`[ops] the index of ${kind} ${monthPath(month)} is marked stale: ${why}`);
  } catch {
    console.error(
      `[ops] the index of ${kind} ${monthPath(month)} may be out of date (${why}), and could not be marked ` +
        "stale: run `npm run inbox -- reindex` once the store answers",
    );
  }
}

/** The months marked stale, each with the mark's path. */
export async function staleMonths(
  store: ObjectStore,
  kind: Folder,
  options?: StoreCallOptions,
): Promise<{ month: number; path: string }[]> {
  const found: { month: number; path: string }[] = [];
  for await (const info of store.list(staleMarkPrefix(kind), options)) {
    const match = /(\d{4})-(\d{2})$/.exec(info.path);
    if (match) found.push({ month: monthNumber(Number(match[1]), Number(match[2])), path: info.path });
  }
  return found;
}

/**
 * Removes a stale mark once its month has been checked, only if nobody marked it again meanwhile
 * (`bytes`: the mark as read before the check).
 */
export async function clearStale(store: ObjectStore, path: string, bytes: Uint8Array): Promise<void> {
  const now = await store.getVersioned(path);
  if (now !== null && Buffer.from(now.bytes).equals(Buffer.from(bytes))) {
    await store.deleteIfVersion(path, now.version);
  }
}
