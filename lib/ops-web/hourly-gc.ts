import { describeFailure } from "../notify";
import { Deadline } from "../store";
import { runRetentionGc, type ScheduledGcServices } from "./scheduled-gc";

/** How often a long-lived server runs gc by itself. */
export const GC_INTERVAL_MS = 60 * 60_000;

/** The first run comes this soon after the start, so a server restarted often still runs it. */
const FIRST_GC_DELAY_MS = 60_000;

/** One run's bound on every store call: well inside the hour, so runs never pile up. */
const GC_RUN_DEADLINE_MS = 5 * 60_000;

/**
 * A long-lived server's (`next start`) gc: a minute after the start, then once an hour, one run at
 * a time, audited as `server`. The timers are unref'd (they never keep the process up) and stop
 * on SIGTERM. A failed run is logged and the next one tries again. Returns the stop function.
 * Not for Vercel, where functions sleep between requests: there `GET /api/cron/gc` is scheduled.
 */
export function startHourlyGc(
  services: ScheduledGcServices,
  { intervalMs = GC_INTERVAL_MS, firstDelayMs = FIRST_GC_DELAY_MS } = {},
): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await runRetentionGc(services, { actor: "server", call: Deadline.in(GC_RUN_DEADLINE_MS).options });
    } catch (error) {
      console.warn(`[gc] the hourly run failed, the next one tries again: ${describeFailure(error)}`);
    } finally {
      running = false;
    }
  };
  const first = setTimeout(() => void run(), firstDelayMs).unref();
  const every = setInterval(() => void run(), intervalMs).unref();
  const stop = () => {
    clearTimeout(first);
    clearInterval(every);
    process.off("SIGTERM", onSigterm);
  };
  const onSigterm = () => {
    stop();
    // Listening for SIGTERM takes away Node's own exit on it: with no other listener, exit as it would.
    if (process.listenerCount("SIGTERM") === 0) process.kill(process.pid, "SIGTERM");
  };
  process.on("SIGTERM", onSigterm);
  return stop;
}
