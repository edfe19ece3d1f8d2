import { listDue, listFailed } from "../deliveries";
import type { ObjectStore } from "../store";
import { InboxRecordError } from "./errors";
import { type BriefFolder, mapLimit, readBrief } from "./reader";
import type { StoredBrief } from "./records";
import type { DeliveryMark } from "./list-filter";

/**
 * The briefs with a delivery retrying (a due record) or given up (a failed record), read from the
 * records' folders: the ops tool's `list --delivery` costs what is pending or failed, never a walk
 * of every brief stored.
 */

const BRIEF_FOLDER = /^briefs\/(\d{4})\/(\d{2})\/(\d{2})\/([^/]+)$/;

/** Folders read at once: enough to hide a remote store's latency. */
const READ_CONCURRENCY = 8;

/** A folder named by a record, as the month listing would describe it; `null` without a brief.json. */
async function briefFolder(store: ObjectStore, folder: string): Promise<BriefFolder | null> {
  const match = BRIEF_FOLDER.exec(folder);
  if (!match) return null;
  const [, year, month, day, reference = ""] = match;
  const entry: BriefFolder = {
    folder,
    reference,
    day: `${year}-${month}-${day}`,
    hasBrief: false,
    hasDelivery: false,
    hasState: false,
    fingerprint: "",
  };
  for await (const info of store.list(`${folder}/`)) {
    const file = info.path.slice(folder.length + 1);
    if (file === "brief.json") entry.hasBrief = true;
    if (file === "delivery.json") entry.hasDelivery = true;
    if (file === "state.json") entry.hasState = true;
  }
  return entry.hasBrief ? entry : null;
}

function newestFirst(a: StoredBrief, b: StoredBrief): number {
  const key = (brief: StoredBrief) => `${brief.record.receivedAt} ${brief.record.reference}`;
  return key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0;
}

/**
 * The briefs marked `mark`, newest first (`since`: received on that UTC day or later). A record
 * whose brief is gone (erased meanwhile) is passed over; a brief that cannot be read goes to
 * `onProblem`.
 */
export async function pendingBriefs(
  store: ObjectStore,
  mark: DeliveryMark,
  { since, onProblem }: { since?: string; onProblem?: (problem: InboxRecordError) => void } = {},
): Promise<StoredBrief[]> {
  const records = mark === "retrying" ? await listDue(store) : await listFailed(store);
  const folders = [...new Set(records.map((record) => record.folder))];
  const briefs = await mapLimit(folders, READ_CONCURRENCY, async (folder) => {
    const entry = await briefFolder(store, folder);
    if (entry === null || (since && entry.day < since)) return null;
    return readBrief(store, "briefs", entry).catch((error: unknown) => {
      if (!(error instanceof InboxRecordError)) throw error;
      onProblem?.(error);
      return null;
    });
  });
  return briefs.filter((brief) => brief !== null).sort(newestFirst);
}
