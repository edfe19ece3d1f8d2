import type { ServerJob } from "../server-jobs";
import type { Deliveries } from "./deliveries";

/** How often a long-lived server looks for due attempts: each is made within about this long of its time. */
export const SCHEDULER_INTERVAL_MS = 10_000;

/**
 * One look's bound: past it the look ends and the next one, 10 s on, goes on; attempts still
 * under way are not waited for (each records its own outcome under its claim).
 */
const LOOK_MS = 8_000;

/** The first look comes soon after the start: attempts that fell due while the server was down. */
const FIRST_LOOK_MS = 2_000;

/**
 * A long-lived server's (`next start`) look for due attempts, as a server job: every 10 s, one
 * look at a time, each bounded to 8 s (what is left waits for the next look). It lists the due
 * records only, and reads only those new or changed since the last look, so it costs what is
 * pending, never what is stored.
 */
export function dueDeliveriesJob(
  deliveries: Deliveries,
  { everyMs = SCHEDULER_INTERVAL_MS, firstAfterMs = FIRST_LOOK_MS } = {},
): ServerJob {
  return {
    name: "delivery",
    firstAfterMs,
    everyMs,
    async run() {
      await deliveries.runDue({ signal: AbortSignal.timeout(LOOK_MS) });
    },
  };
}
