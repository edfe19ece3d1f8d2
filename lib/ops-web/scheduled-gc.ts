import { collectGarbage, type GarbageCollected } from "../ops";
import type { ObjectStore, StoreCallOptions } from "../store";
import { collectExpiredSignIns } from "./cleanup";

/** What a scheduled gc run needs: the inbox and how long briefs are kept. */
export interface ScheduledGcServices {
  store: ObjectStore;
  config: { retentionDays: number | null };
}

/**
 * One unattended gc run (`GET /api/cron/gc`, or a long-lived server's hourly one): the ops tool's
 * `gc` with the configured retention, its finds logged as counts (never a path, which could name
 * nothing personal but is of no use in a log either). `actor` is what the audit log names for a
 * run that erased briefs or spam.
 */
export async function runRetentionGc(
  { store, config }: ScheduledGcServices,
  { actor, call, now = new Date() }: { actor: string; call?: StoreCallOptions; now?: Date },
): Promise<{ removed: number; collected: GarbageCollected }> {
  const collected = await collectGarbage(
    { store, collectExpiredSignIns },
    { now, call, retentionDays: config.retentionDays, actor },
  );
  const { stagedUploads, expiredSignIns, abandonedUploads, retention } = collected;
  const found: [number, string][] = [
    [stagedUploads.length, "staged uploads no brief claimed"],
    [expiredSignIns.length, "expired sessions and spent links"],
    [abandonedUploads.length, "unfinished uploads' temporary files"],
    [retention.briefs.length, "briefs past RETENTION_DAYS"],
    [retention.spam.length, "spam entries past RETENTION_DAYS"],
    [retention.pendingSubscribers.length, "subscriptions left unconfirmed for 7 days"],
    [collected.subscriberChanges, "subscriber change marks, folded into the subscribers' index"],
  ];
  let removed = 0;
  for (const [count, what] of found) {
    if (count > 0) console.info(`[gc] removed ${count} ${what}`);
    removed += count;
  }
  return { removed, collected };
}
