import { createHash } from "node:crypto";
import { type ObjectStore, type StoreCallOptions, updateObject } from "../store";
import { type Delivery, type Folder, type SpamVerdict } from "../briefs";
import { indexDocumentLine } from "./index-document";
import { deliveryStatus } from "./labels";
import { monthPath } from "./reader";
import type { StoredBrief } from "./records";
import { BRIEF_STATUSES, type BriefState, type BriefStatus } from "./state";

/**
 * What the inbox's list, search and counts need of a brief, and the per-month index that keeps
 * them: `index/<briefs|spam>/YYYY/MM.json`, beside the briefs in the same store (issues 20, 33).
 *
 * The index is a cache, never a source: the brief's page, the download, the export and the ops
 * tool read the briefs themselves. It is kept current as the service writes (`index-update.ts`),
 * checked against the store's listing where that is cheap (the days since the catalog's watermark,
 * and any month marked stale), and rebuilt from the briefs when it is lost, damaged or of another
 * version (`rebuild.ts`). Every write is a conditional read-modify-write, merged entry by entry
 * (`mergeSummary`), so a view and an action writing at once lose neither's news.
 */

export interface BriefSummary {
  reference: string;
  folder: string;
  receivedAt: string;
  name: string;
  email: string;
  company: string | null;
  description: string;
  status: BriefStatus;
  /** The attachment's original name; `null` when there is none. */
  attachment: string | null;
  /** `deliveryStatus`: `webhook ✓ email ✗`, `pending`, ... */
  delivery: string;
  /** Spam entries: what caught it; `null` for a brief. */
  spam: SpamVerdict | null;
  /**
   * The listing's fingerprint of the folder (name, size and time of `brief.json`, `state.json`,
   * `delivery.json`) when a view last read it; `""` after a write-time update, which cannot know it.
   */
  fingerprint: string;
  /** How far `state.json` had grown (status changes + notes): the larger one is the newer. */
  stateSerial: number;
  /** How far `delivery.json` had grown (its records and their attempts): the larger one is the newer. */
  deliverySerial: number;
  /** When this entry was written into the index (ms): a listing older than that cannot remove it. */
  indexedAt: number;
}

/**
 * An erased brief's folder, kept a while so that a view that read it just before cannot bring it
 * back: by `tombstoneKey`, never by name, so nothing of an erased brief stays in the store.
 */
export interface Tombstone {
  key: string;
  at: number;
}

/** A folder as a tombstone names it: a SHA-256, which says nothing of the brief. */
export function tombstoneKey(folder: string): string {
  return createHash("sha256").update(folder).digest("hex");
}

export interface MonthIndex {
  /** Grows with every write (and is at least the time of it): how the catalog orders a month's counts. */
  serial: number;
  entries: BriefSummary[];
  erased: Tombstone[];
}

/** 3: kept at write time, with serials and tombstones (issue 33); any other version is rebuilt. */
export const INDEX_VERSION = 3;

/** How long a tombstone is kept: far longer than any view's read of one month. */
const TOMBSTONE_MS = 15 * 60_000;

export function indexPath(kind: Folder, month: number): string {
  return `index/${kind}/${monthPath(month)}.json`;
}

export function stateSerial(state: Pick<BriefState, "history" | "notes">): number {
  return state.history.length + state.notes.length;
}

export function deliverySerial(delivery: Delivery | null): number {
  if (delivery === null) return 0;
  return Object.values(delivery).reduce((sum, record) => sum + 1 + (record?.attempts ?? 0), 0);
}

export function summarize(brief: StoredBrief, fingerprint = "", indexedAt = Date.now()): BriefSummary {
  const { record } = brief;
  return {
    reference: record.reference,
    folder: brief.folder,
    receivedAt: record.receivedAt,
    name: record.name,
    email: record.email,
    company: record.company,
    description: record.description,
    status: brief.state.status,
    attachment: record.attachment?.originalName ?? null,
    delivery: deliveryStatus(brief),
    spam: brief.kind === "spam" ? (record.spam ?? { reason: "honeypot" }) : null,
    fingerprint,
    stateSerial: stateSerial(brief.state),
    deliverySerial: deliverySerial(brief.delivery),
    indexedAt,
  };
}

/**
 * One brief's summary from two sources (the index's and a newer read or write): each part from
 * whichever saw more of its file, so an older read landing after a newer write changes nothing.
 */
export function mergeSummary(known: BriefSummary | undefined, incoming: BriefSummary): BriefSummary {
  if (!known) return incoming;
  const state = known.stateSerial > incoming.stateSerial ? known : incoming;
  const delivery = known.deliverySerial > incoming.deliverySerial ? known : incoming;
  return {
    ...incoming,
    status: state.status,
    stateSerial: state.stateSerial,
    delivery: delivery.delivery,
    deliverySerial: delivery.deliverySerial,
  };
}

export function countByStatus(entries: Iterable<Pick<BriefSummary, "status">>): Record<BriefStatus, number> {
  const counts = Object.fromEntries(BRIEF_STATUSES.map((status) => [status, 0])) as Record<
    BriefStatus,
    number
  >;
  for (const entry of entries) counts[entry.status]++;
  return counts;
}

function isSummary(value: unknown): value is BriefSummary {
  const entry = value as Partial<BriefSummary> | null;
  return (
    typeof entry === "object" &&
    entry !== null &&
    typeof entry.reference === "string" &&
    typeof entry.folder === "string" &&
    typeof entry.receivedAt === "string" &&
    typeof entry.name === "string" &&
    typeof entry.email === "string" &&
    typeof entry.description === "string" &&
    typeof entry.delivery === "string" &&
    typeof entry.stateSerial === "number" &&
    typeof entry.deliverySerial === "number" &&
    (BRIEF_STATUSES as readonly unknown[]).includes(entry.status)
  );
}

/**
 * A month index's bytes, or `null` when they are not one of this version. Checked by shape, not by
 * schema: a view reads every month's entries for a search, and a full schema check of 50,000 was
 * what it spent most on. A document that fails the check is rebuilt, never half used.
 */
export function parseMonthIndex(bytes: Uint8Array | null): MonthIndex | null {
  if (bytes === null) return null;
  try {
    const doc = JSON.parse(Buffer.from(bytes).toString("utf8")) as Record<string, unknown>;
    if (doc.version !== INDEX_VERSION || typeof doc.serial !== "number") return null;
    if (!Array.isArray(doc.entries) || !doc.entries.every(isSummary)) return null;
    const erased = Array.isArray(doc.erased) ? (doc.erased as Tombstone[]) : [];
    return { serial: doc.serial, entries: doc.entries, erased };
  } catch {
    return null;
  }
}

/** Reads a month's index: `null` when there is none, or it is damaged or of another version. */
export async function readMonthIndex(
  store: ObjectStore,
  kind: Folder,
  month: number,
  options?: StoreCallOptions,
): Promise<MonthIndex | null> {
  return parseMonthIndex(await store.get(indexPath(kind, month), options));
}

/**
 * What a change makes of a month's entries (by folder) and tombstones (by `tombstoneKey`); `false`:
 * nothing changed, nothing is written.
 */
export type IndexChange = (entries: Map<string, BriefSummary>, erased: Map<string, number>) => boolean;

/**
 * Changes a month's index with a conditional write (again on a lost race), and answers the index
 * as written (or as it was, when nothing changed). `create`: what to do when there is no index of
 * this version: start an empty one (a view that has read the whole month), or leave it (`false`:
 * a write-time update, which must not make a month of one brief look indexed): then `null`.
 */
export async function changeMonthIndex(
  store: ObjectStore,
  kind: Folder,
  month: number,
  change: IndexChange,
  { create, ...options }: StoreCallOptions & { create: boolean },
): Promise<MonthIndex | null> {
  return updateObject<MonthIndex | null>(
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
      const changed = change(entries, erased) || current === null;
      if (!changed && current !== null) return { result: current };
      for (const folder of [...entries.keys()]) if (erased.has(tombstoneKey(folder))) entries.delete(folder);
      const written: MonthIndex = {
        serial: Math.max((current?.serial ?? 0) + 1, now),
        entries: [...entries.values()],
        erased: [...erased].map(([key, at]) => ({ key, at })),
      };
      return { write: indexDocumentLine(INDEX_VERSION, written), result: written };
    },
    options,
  );
}
