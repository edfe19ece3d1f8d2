import type { Folder } from "../briefs";
import { markSubscriberChange } from "../newsletter/subscriber-changes";
import { isSubscriberId, parseRecord } from "../newsletter/subscribers";
import type { ObjectStore, StoreCallOptions } from "../store";
import { eraseFolders } from "./erase";
import type { InboxRecordError } from "./errors";
import { summariesInRange } from "./search";

/**
 * Retention (`RETENTION_DAYS`): briefs and spam entries received more than that many days ago are
 * erased, every file of each, through the same per-folder erase as the right to be forgotten (so
 * the month indexes are rebuilt and whatever else an erased brief leaves behind goes with it).
 * Newsletter records still `pending` a week after their last request are removed whatever the
 * setting: nobody consented, and the confirmation link they were sent has expired.
 */

const DAY_MS = 86_400_000;

/** How long a subscription may wait for its confirmation: the link's own 7 days. */
export const PENDING_SUBSCRIBER_MAX_AGE_MS = 7 * DAY_MS;

export interface RetentionOptions {
  now: Date;
  /** `RETENTION_DAYS`; `null`: briefs and spam are kept forever. */
  retentionDays: number | null;
  dryRun?: boolean;
  /** Bounds each subscriber call, and stops the erasing when it aborts (what is left waits). */
  call?: StoreCallOptions;
  onProblem?: (problem: InboxRecordError) => void;
}

export interface RetentionResult {
  /** The folders erased (or, `dryRun`, that would be). */
  briefs: string[];
  spam: string[];
  /** The paths of the pending subscriber records removed. */
  pendingSubscribers: string[];
}

/** The folders of `kind` holding a brief received before `cutoff`. */
async function foldersBefore(
  store: ObjectStore,
  kind: Folder,
  cutoff: Date,
  now: Date,
  onProblem?: (problem: InboxRecordError) => void,
): Promise<string[]> {
  // Only the months up to the cutoff's are read: newer ones cannot hold anything this old.
  const to = cutoff.toISOString().slice(0, 10);
  const summaries = await summariesInRange(store, kind, { from: null, to }, now, onProblem);
  return summaries
    .filter((summary) => Date.parse(summary.receivedAt) < cutoff.getTime())
    .map((summary) => summary.folder)
    .sort();
}

/** Erases (or, `dryRun`, finds) the briefs and spam past `retentionDays`. */
async function eraseExpiredBriefs(
  store: ObjectStore,
  { now, retentionDays, dryRun = false, call = {}, onProblem }: RetentionOptions,
): Promise<Pick<RetentionResult, "briefs" | "spam">> {
  if (retentionDays === null) return { briefs: [], spam: [] };
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  const found = { briefs: [] as string[], spam: [] as string[] };
  for (const kind of ["briefs", "spam"] as const) {
    const folders = await foldersBefore(store, kind, cutoff, now, onProblem);
    if (dryRun) {
      found[kind] = folders;
      continue;
    }
    // A month at a time, so a run cut short by its deadline has erased (and reindexed) whole months.
    for (const month of groupByMonth(folders)) {
      if (call.signal?.aborted) break;
      await eraseFolders(store, kind, month);
      found[kind].push(...month);
    }
  }
  return found;
}

/** `briefs/YYYY/MM/...` folders in runs of one month each. */
function groupByMonth(folders: readonly string[]): string[][] {
  const months = new Map<string, string[]>();
  for (const folder of folders) {
    const month = folder.split("/").slice(0, 3).join("/");
    months.set(month, [...(months.get(month) ?? []), folder]);
  }
  return [...months.values()];
}

/**
 * Removes (or finds) the subscriber records still `pending` 7 days after they last changed. Each
 * removal is conditional on the version read, so a confirmation landing meanwhile is never undone.
 * A record that cannot be read is left alone (the ops tool's `subscribers` reports it).
 */
async function removeStalePendingSubscribers(
  store: ObjectStore,
  { now, dryRun = false, call = {} }: RetentionOptions,
): Promise<string[]> {
  const removed: string[] = [];
  const before = now.getTime() - PENDING_SUBSCRIBER_MAX_AGE_MS;
  // Listed whole first: nothing is removed from under a listing still under way.
  const paths: string[] = [];
  for await (const info of store.list("newsletter/subscribers/", call)) {
    if (info.path.endsWith(".json")) paths.push(info.path);
  }
  for (const path of paths) {
    const stored = await store.getVersioned(path, call);
    if (stored === null) continue;
    let record;
    try {
      record = parseRecord(path, stored.bytes);
    } catch {
      continue;
    }
    if (record.status !== "pending" || !(Date.parse(record.updatedAt) < before)) continue;
    if (dryRun) {
      removed.push(path);
      continue;
    }
    // Marked first, like every change of a record, so the subscribers' index drops it too.
    const id = path.slice("newsletter/subscribers/".length, -".json".length);
    if (isSubscriberId(id)) await markSubscriberChange(store, id, Date.now(), call);
    if (await store.deleteIfVersion(path, stored.version, call)) removed.push(path);
  }
  return removed;
}

/** Retention's two rules, one after the other. */
export async function applyRetention(
  store: ObjectStore,
  options: RetentionOptions,
): Promise<RetentionResult> {
  const { briefs, spam } = await eraseExpiredBriefs(store, options);
  const pendingSubscribers = await removeStalePendingSubscribers(store, options);
  return { briefs, spam, pendingSubscribers };
}
