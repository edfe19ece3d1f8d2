import { collectStaleUploads } from "../../contact/staging";
import {
  ABANDONED_UPLOAD_AGE_MS,
  type AbandonedUpload,
  type ObjectInfo,
  type ObjectStore,
  type RemoveExpiredOptions,
  type StoreCallOptions,
} from "../../store";
import type { InboxStore } from "../deps";

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
}

/**
 * `gc`, for the ops tool and the cron route alike: removes (or, `dryRun`, lists) what nothing
 * will claim any more. A store that does not answer throws `StoreUnavailableError`, and what was
 * not removed waits for the next run.
 */
export async function collectGarbage(
  { store, collectExpiredSignIns }: Housekeeping,
  {
    now = new Date(),
    dryRun = false,
    call = {},
    inOrder = false,
    onStagedUpload,
    onExpiredSignIn,
  }: GarbageOptions = {},
): Promise<GarbageCollected> {
  const staged = () => collectStaleUploads(store, now, { ...call, dryRun, onExpired: onStagedUpload });
  const signIns = () => collectExpiredSignIns(store, now, { ...call, dryRun, onExpired: onExpiredSignIn });
  const unfinished = () =>
    store.removeAbandonedUploads(new Date(now.getTime() - ABANDONED_UPLOAD_AGE_MS), { ...call, dryRun });
  if (inOrder) {
    return {
      stagedUploads: await staged(),
      expiredSignIns: await signIns(),
      abandonedUploads: await unfinished(),
    };
  }
  const [stagedUploads, expiredSignIns, abandonedUploads] = await Promise.all([
    staged(),
    signIns(),
    unfinished(),
  ]);
  return { stagedUploads, expiredSignIns, abandonedUploads };
}
