import { finishInBackground } from "../background";
import {
  createIfAbsent,
  Deadline,
  type ObjectStore,
  type ObjectUpload,
  type StoreCallOptions,
} from "../store";
import { type AttachmentRecord, type BriefRecord, briefFolder, type Folder } from "./record";

export interface AttachmentUpload {
  record: AttachmentRecord;
  /**
   * Where the bytes are: written to the store as they arrived (`upload`, committed into the
   * brief's folder by the save), or in memory (`chunks`).
   */
  upload?: ObjectUpload;
  chunks?: readonly Uint8Array[];
  /**
   * Set when the file was uploaded ahead of the form and read back from this path under
   * `staging/`: the store copies it into the brief's folder instead of writing `chunks` again, and
   * it is deleted once `brief.json` is committed.
   */
  staged?: string;
}

/**
 * A small file that belongs in the brief's folder from the moment it is committed, written with
 * `brief.json` (before it; `delivery.json` when there is nothing to notify).
 */
export interface BriefFile {
  name: string;
  body: string;
  contentType: string;
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

/** Another brief has claimed this staged upload already. */
export class StagedUploadTakenError extends Error {
  override name = "StagedUploadTakenError";
}

/**
 * The marker that says which brief claimed the staged upload `staging/<id>/<name>`:
 * `staging/<id>.claim`, beside the upload's folder (no upload token can name that path), and
 * removed with the other staged objects by `gc`.
 */
export function stagedClaimPath(staged: string): string {
  return `${staged.slice(0, staged.lastIndexOf("/"))}.claim`;
}

/**
 * Stores a brief: the attachment first, then `brief.json`, which is the commit point. A staged
 * attachment (uploaded ahead of the form) is first claimed for this brief, so that of concurrent
 * briefs naming it exactly one stores it (the others get `StagedUploadTakenError`); it is copied
 * rather than written, and the staged object is deleted only after the commit point: until then
 * it is the only copy the visitor has handed over. Files `alongside` (`delivery.json` when nothing
 * is to be notified) are written with `brief.json`, placed just before it, in one flush.
 *
 * Every call is bounded by the save's deadline. When a write fails or runs out of time, what this
 * save wrote is removed, `brief.json` first and the attachment only once `brief.json` is gone, so a
 * brief never points at a missing file. A call that timed out may still land later (a hung disk
 * that recovers, a store that accepted a write whose answer was lost): once every call of the save
 * has settled, the removal runs again, in the background, until it succeeds. Throws
 * `StoreUnavailableError` when the store cannot be written.
 */
export async function saveBrief(
  store: ObjectStore,
  folder: Folder,
  record: BriefRecord,
  attachment: AttachmentUpload | null,
  deadlines: SaveDeadlines = SAVE_DEADLINES,
  alongside: readonly BriefFile[] = [],
): Promise<string> {
  const base = briefFolder(folder, record.reference, new Date(record.receivedAt));
  const deadline = Deadline.in(deadlines.saveMs);
  const { options } = deadline;
  // What this save may have written, in the order written.
  const written: string[] = [];
  try {
    if (attachment?.staged) {
      const claim = stagedClaimPath(attachment.staged);
      written.push(claim);
      if (!(await createIfAbsent(store, claim, `${record.reference}\n`, "text/plain", options)).created) {
        written.pop(); // another brief's marker: not ours to remove
        throw new StagedUploadTakenError(`${attachment.staged} is claimed by another brief`);
      }
    }
    if (attachment) {
      const path = `${base}/${attachment.record.filename}`;
      written.push(path);
      const { contentType } = attachment.record;
      if (attachment.staged) await store.copy(attachment.staged, path, contentType, options);
      else if (attachment.upload) await attachment.upload.commit(path, contentType, options);
      else await store.put(path, attachment.chunks ?? [], contentType, options);
    }
    const commit = {
      path: `${base}/brief.json`,
      body: `${JSON.stringify(record, null, 2)}\n`,
      contentType: "application/json",
    };
    const files = [...alongside.map((file) => ({ ...file, path: `${base}/${file.name}` })), commit];
    written.push(...files.map((file) => file.path));
    // brief.json last, the commit point; the others are placed before it and flushed with it.
    if (alongside.length === 0) await store.put(commit.path, commit.body, commit.contentType, options);
    else await store.putAll(files, options);
  } catch (error) {
    await undoSave(store, written.reverse(), deadline, deadlines.cleanupMs, record.reference);
    throw error;
  }
  deadline.end();
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

/** Waits before each further attempt to undo a failed save, once its calls have settled. */
const LATE_UNDO_WAITS_MS = [0, 1_000, 5_000, 15_000, 30_000];

/** Each late attempt's bound. */
const LATE_UNDO_CALL_MS = 5_000;

/**
 * Removes what a failed save wrote (`paths`, last written first) within `cleanupMs`. When that
 * does not finish, or some call of the save is still running, it is done again in the background
 * once every call has settled: nothing that lands after the answer survives it.
 */
async function undoSave(
  store: ObjectStore,
  paths: readonly string[],
  deadline: Deadline,
  cleanupMs: number,
  reference: string,
): Promise<void> {
  if (paths.length === 0) return;
  const undone = await removeInOrder(store, paths, deadline.extend(cleanupMs).options, true);
  if (undone && !deadline.pending) return;
  finishInBackground(
    (async () => {
      await deadline.settled();
      for (const wait of LATE_UNDO_WAITS_MS) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        const options = { signal: AbortSignal.timeout(LATE_UNDO_CALL_MS) };
        if (await removeInOrder(store, paths, options, false)) return;
      }
      console.error(`[inbox] could not undo the unsaved brief ${reference}; remove ${paths.join(", ")}`);
    })(),
    `undoing the unsaved brief ${reference}`,
  );
}

/**
 * Removes `paths` in order and stops at the first that fails: the attachment is removed only once
 * `brief.json` is gone. True when every one is gone.
 */
async function removeInOrder(
  store: ObjectStore,
  paths: readonly string[],
  options: StoreCallOptions,
  log: boolean,
): Promise<boolean> {
  for (const path of paths) {
    try {
      await store.delete(path, options);
    } catch (error) {
      if (log) console.error(`[inbox] could not remove ${path} of an unsaved brief`, error);
      return false;
    }
  }
  return true;
}
