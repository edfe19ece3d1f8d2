import { z } from "zod";
import type { ObjectStore } from "../store";
import { type Folder, SPAM_REASONS, type SpamVerdict } from "../briefs";
import { describeFailure } from "../notify";
import { InboxRecordError } from "./errors";
import { deliveryStatus } from "./labels";
import { type BriefFolder, listMonth, mapLimit, monthPath, readBrief } from "./reader";
import type { StoredBrief } from "./records";
import { BRIEF_STATUSES, type BriefStatus } from "./state";

/**
 * What the inbox's list, search and counts need of a brief, and the per-month index that keeps
 * them: `index/<briefs|spam>/YYYY/MM.json`, beside the briefs in the same store.
 *
 * The index is a cache, never a source. Each entry carries the fingerprint the month's listing
 * gave its folder (name, size and time of `brief.json`, `state.json`, `delivery.json`); every read
 * lists the month again and takes an entry only while its fingerprint still matches, reading the
 * brief itself otherwise. A missing, unreadable or stale index is rebuilt, folders gone from the
 * listing drop out of it, and a brief that the listing does not show is never shown from it.
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
  /** The listing's fingerprint of the folder when this summary was made. */
  fingerprint: string;
}

// 2: summaries say what caught a spam entry; an index of version 1 is rebuilt.
const INDEX_VERSION = 2;

const summarySchema = z.object({
  reference: z.string(),
  folder: z.string(),
  receivedAt: z.string(),
  name: z.string(),
  email: z.string(),
  company: z.string().nullable(),
  description: z.string(),
  status: z.enum(BRIEF_STATUSES),
  attachment: z.string().nullable(),
  delivery: z.string(),
  spam: z.object({ reason: z.enum(SPAM_REASONS), match: z.string().optional() }).nullable(),
  fingerprint: z.string(),
});
const indexSchema = z.object({ version: z.literal(INDEX_VERSION), entries: z.array(summarySchema) });

/** Briefs read at once while (re)building an index: enough to hide a remote store's latency. */
const REBUILD_CONCURRENCY = 32;

export function indexPath(kind: Folder, month: number): string {
  return `index/${kind}/${monthPath(month)}.json`;
}

export function summarize(brief: StoredBrief, fingerprint = ""): BriefSummary {
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
  };
}

async function readIndex(store: ObjectStore, path: string): Promise<Map<string, BriefSummary>> {
  const bytes = await store.get(path);
  const entries = new Map<string, BriefSummary>();
  if (bytes === null) return entries;
  try {
    const parsed = indexSchema.safeParse(JSON.parse(Buffer.from(bytes).toString("utf8")));
    if (parsed.success) for (const entry of parsed.data.entries) entries.set(entry.folder, entry);
  } catch {
    // Not JSON: rebuilt below, like a missing one.
  }
  return entries;
}

/**
 * One month's briefs as summaries, newest day first (as the listing orders days; within a day,
 * unordered). Reads only the briefs the index does not hold as they are now, and writes the index
 * back when anything changed; a failure to write it costs only speed next time.
 */
export async function monthSummaries(
  store: ObjectStore,
  kind: Folder,
  month: number,
  onProblem?: (problem: InboxRecordError) => void,
): Promise<BriefSummary[]> {
  const days = await listMonth(store, kind, month);
  const folders = days.flat();
  const path = indexPath(kind, month);
  const indexed = await readIndex(store, path);
  let changed = indexed.size !== folders.length;
  const summaries = await mapLimit(folders, REBUILD_CONCURRENCY, async (entry: BriefFolder) => {
    const known = indexed.get(entry.folder);
    if (known && known.fingerprint === entry.fingerprint) return known;
    changed = true;
    try {
      const brief = await readBrief(store, kind, entry);
      return brief === null ? null : summarize(brief, entry.fingerprint);
    } catch (error) {
      if (!(error instanceof InboxRecordError)) throw error;
      onProblem?.(error);
      return null;
    }
  });
  const found = summaries.filter((summary) => summary !== null);
  if (changed) {
    const body = `${JSON.stringify({ version: INDEX_VERSION, entries: found })}\n`;
    await store.put(path, body, "application/json").catch((error: unknown) => {
      console.warn(`[ops] could not write ${path}: ${describeFailure(error)}`);
    });
  }
  return found;
}
