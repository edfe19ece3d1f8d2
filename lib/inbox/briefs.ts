import type { Budget, ProjectType, Timeline } from "../schemas/brief";
import type { ObjectStore } from "./types";

/** What `brief.json` says about the attached file. */
export interface AttachmentRecord {
  /** The stored object's name, e.g. `attachment.pdf`. */
  filename: string;
  /** The visitor's file name, cleaned; metadata only. */
  originalName: string;
  contentType: string;
  size: number;
  sha256: string;
}

export interface ClientRecord {
  /** Salted hash of the client address; `null` when the address is unknown. */
  ipHash: string | null;
  userAgent: string | null;
  origin: string | null;
}

/** The stored form of a brief: `brief.json`. Optional fields the visitor left out are `null`. */
export interface BriefRecord {
  reference: string;
  /** ISO 8601, UTC. */
  receivedAt: string;
  name: string;
  email: string;
  company: string | null;
  role: string | null;
  projectType: ProjectType;
  budget: Budget;
  timeline: Timeline;
  description: string;
  consent: true;
  attachment: AttachmentRecord | null;
  client: ClientRecord;
}

export interface AttachmentUpload {
  record: AttachmentRecord;
  chunks: readonly Uint8Array[];
  /**
   * Set when the file was uploaded ahead of the form and read back from this path under
   * `staging/`: the store copies it into the brief's folder instead of writing `chunks` again, and
   * it is deleted once `brief.json` is committed.
   */
  staged?: string;
}

/** Honeypot catches live apart from real briefs, under the same layout. */
export type Folder = "briefs" | "spam";

/** `briefs/YYYY/MM/DD/<reference>` for the UTC day of receipt. */
export function briefFolder(folder: Folder, reference: string, receivedAt: Date): string {
  const day = receivedAt.toISOString().slice(0, 10).replaceAll("-", "/");
  return `${folder}/${day}/${reference}`;
}

/**
 * Time limits for storing one brief. The contract answers a store that is down with 503 within
 * 10 s: the writes get `saveMs` together, and removing what a failed save left gets `cleanupMs`
 * more, which leaves room for the rest of the request.
 */
export interface SaveDeadlines {
  saveMs: number;
  cleanupMs: number;
}

export const SAVE_DEADLINES: SaveDeadlines = { saveMs: 6_000, cleanupMs: 1_500 };

/**
 * Stores a brief: the attachment first, then `brief.json`, which is the commit point. When a
 * write fails or runs out of time, every object this save tried to write is removed where
 * possible, `brief.json` first: a write that timed out may still have landed, and a brief must
 * never be left pointing at a missing attachment. Throws `StoreUnavailableError` when the store
 * cannot be written.
 *
 * A staged attachment is copied rather than written, and its staged object is deleted only after
 * the commit point: until then it is the only copy the visitor has handed over. A failed save
 * leaves it in place (the visitor may send the form again; `gc` removes it after an hour).
 */
export async function saveBrief(
  store: ObjectStore,
  folder: Folder,
  record: BriefRecord,
  attachment: AttachmentUpload | null,
  deadlines: SaveDeadlines = SAVE_DEADLINES,
): Promise<string> {
  const base = briefFolder(folder, record.reference, new Date(record.receivedAt));
  const attempted: string[] = [];
  const signal = AbortSignal.timeout(deadlines.saveMs);
  try {
    if (attachment) {
      const path = `${base}/${attachment.record.filename}`;
      attempted.push(path);
      const { contentType } = attachment.record;
      if (attachment.staged) await store.copy(attachment.staged, path, contentType, { signal });
      else await store.put(path, attachment.chunks, contentType, { signal });
    }
    attempted.push(`${base}/brief.json`);
    await store.put(`${base}/brief.json`, `${JSON.stringify(record, null, 2)}\n`, "application/json", {
      signal,
    });
  } catch (error) {
    await removeAll(store, attempted.reverse(), deadlines.cleanupMs);
    throw error;
  }
  if (attachment?.staged) {
    // Committed: the brief holds its own copy. A staged object left behind is only litter.
    const staged = attachment.staged;
    await store
      .delete(staged, { signal: AbortSignal.timeout(deadlines.cleanupMs) })
      .catch((error: unknown) => {
        console.error(`[inbox] could not remove ${staged} after its brief was stored; gc will`, error);
      });
  }
  return base;
}

/** Best effort: each failure is logged, and the caller's own error is what propagates. */
async function removeAll(store: ObjectStore, paths: readonly string[], timeoutMs: number): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs);
  for (const path of paths) {
    await store.delete(path, { signal }).catch((cleanupError: unknown) => {
      console.error(`[inbox] could not remove ${path} of an unsaved brief`, cleanupError);
    });
  }
}
