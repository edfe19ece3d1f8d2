import { createHash } from "node:crypto";
import { type Delivery, type SpamVerdict } from "../briefs";
import { deliveryStatus } from "./labels";
import type { StoredBrief } from "./records";
import { BRIEF_STATUSES, type BriefState, type BriefStatus } from "./state";

/**
 * What the inbox's list, search and counts need of a brief, and the per-month index that keeps
 * them: `index/<briefs|spam>/YYYY/MM.json` with its recent changes beside it (`month-index.ts`), next
 * to the briefs in the same store (issues 20, 33, 45).
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
  /** The form's wire values (`web-application`, `50k-100k`, ...): the list shows their labels. */
  projectType: string;
  budget: string;
  timeline: string;
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

/**
 * 3: kept at write time, with serials and tombstones (issue 33); 4: with the project type, budget
 * and timeline (issue 45). Any other version is rebuilt (the catalog's version moved with it, so the
 * rebuild goes month by month as for a lost index, never a whole month read for one page).
 */
export const INDEX_VERSION = 4;

/** How long a tombstone is kept: far longer than any view's read of one month. */
export const TOMBSTONE_MS = 15 * 60_000;

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
    projectType: record.projectType,
    budget: record.budget,
    timeline: record.timeline,
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

export function isSummary(value: unknown): value is BriefSummary {
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
    typeof entry.projectType === "string" &&
    typeof entry.budget === "string" &&
    typeof entry.timeline === "string" &&
    typeof entry.delivery === "string" &&
    typeof entry.stateSerial === "number" &&
    typeof entry.deliverySerial === "number" &&
    (BRIEF_STATUSES as readonly unknown[]).includes(entry.status)
  );
}
