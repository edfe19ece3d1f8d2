import { collectStaleUploads } from "../../contact/staging";
import {
  ABANDONED_UPLOAD_AGE_MS,
  type AbandonedUpload,
  type ObjectInfo,
  type ObjectStore,
  type RemoveExpiredOptions,
  type StoreCallOptions,
} from "../../store";
import { recordAudit } from "../audit";
import type { InboxStore } from "../deps";
import type { InboxRecordError } from "../errors";
import { applyRetention, type RetentionResult } from "../retention";
import { foldSubscriberChanges } from "../subscriber-index";

/**
 * What gc needs besides the store: the inbox on the web's own rule for its expired sign-in
 * records (`collectExpiredSignIns` of lib/ops-web), passed in by the caller, since the web side
 * builds on lib/ops and not the other way round.
 */
export interface Housekeeping extends InboxStore {
  collectExpiredSignIns: (
    store: ObjectStore,
    now: Date,
    options: RemoveExpiredOptions,
  ) => Promise<ObjectInfo[]>;
}

export interface GarbageOptions {
  now?: Date;
  /** Only find what would be removed. */
  dryRun?: boolean;
  /** Every store call's bound (a cron run's deadline). */
  call?: StoreCallOptions;
  /**
   * Run the three clean-ups in order rather than side by side: for a caller that prints each find
   * as it comes. A cron run leaves it off, so the three share its one deadline at once.
   */
  inOrder?: boolean;
  /** `RETENTION_DAYS`: briefs and spam older than this are erased; `null` (the default): kept. */
  retentionDays?: number | null;
  /** Who the audit log names for a run that erased briefs or spam (`cron`, `server`, the tool's user). */
  actor?: string;
  /** Told about each brief that cannot be read while looking for expired ones. */
  onProblem?: (problem: InboxRecordError) => void;
  /** Told of each staged upload as it is removed (or found), and of each expired sign-in record. */
  onStagedUpload?: (upload: ObjectInfo) => void | Promise<void>;
  onExpiredSignIn?: (record: ObjectInfo) => void | Promise<void>;
}

export interface GarbageCollected {
  /** Files uploaded ahead of a form that no brief claimed within the hour. */
  stagedUploads: ObjectInfo[];
  /** The inbox on the web's expired sessions and spent links (kept in the store without Redis). */
  expiredSignIns: ObjectInfo[];
  /** Temporary files of uploads a stopped process left unfinished (an hour untouched). */
  abandonedUploads: AbandonedUpload[];
  /** What retention erased: briefs, spam (folders) and pending subscriber records past 7 days. */
  retention: RetentionResult;
  /** Settled subscriber change marks folded into the subscribers' index (and removed). */
  subscriberChanges: number;
}

/**
 * `gc`, for the ops tool, the cron route and a long-lived server's hourly run alike: removes (or,
 * `dryRun`, lists) what nothing will claim any more, then applies retention (briefs and spam past
 * `retentionDays`, pending subscribers past 7 days) and folds the settled subscriber change marks
 * into the subscribers' index (after retention, whose removals leave marks of their own). A run
 * that erased briefs or spam writes one audit entry, `retention`, with the counts. A store that does not answer throws
 * `StoreUnavailableError`, and what was not removed waits for the next run.
 */
export async function collectGarbage(
  { store, collectExpiredSignIns }: Housekeeping,
  {
    now = new Date(),
    dryRun = false,
    call = {},
    inOrder = false,
    retentionDays = null,
    actor = "gc",
    onProblem,
    onStagedUpload,
    onExpiredSignIn,
  }: GarbageOptions = {},
): Promise<GarbageCollected> {
  const staged = () => collectStaleUploads(store, now, { ...call, dryRun, onExpired: onStagedUpload });
  const signIns = () => collectExpiredSignIns(store, now, { ...call, dryRun, onExpired: onExpiredSignIn });
  const unfinished = () =>
    store.removeAbandonedUploads(new Date(now.getTime() - ABANDONED_UPLOAD_AGE_MS), { ...call, dryRun });
  const retention = () => applyRetention(store, { now, retentionDays, dryRun, call, onProblem });
  let collected: Omit<GarbageCollected, "subscriberChanges">;
  if (inOrder) {
    collected = {
      stagedUploads: await staged(),
      expiredSignIns: await signIns(),
      abandonedUploads: await unfinished(),
      retention: await retention(),
    };
  } else {
    const [stagedUploads, expiredSignIns, abandonedUploads, erased] = await Promise.all([
      staged(),
      signIns(),
      unfinished(),
      retention(),
    ]);
    collected = { stagedUploads, expiredSignIns, abandonedUploads, retention: erased };
  }
  // After the rest, so that what retention erased is folded in as well.
  const subscriberChanges = await foldSubscriberChanges(store, { now, dryRun, onProblem, call });
  const { briefs, spam } = collected.retention;
  if (!dryRun && briefs.length + spam.length > 0) {
    const target = `${briefs.length} briefs, ${spam.length} spam`;
    await recordAudit(store, { actor, action: "retention", target }, now);
  }
  return { ...collected, subscriberChanges };
}
