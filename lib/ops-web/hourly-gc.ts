import { type ServerJob, startServerJobs } from "../server-jobs";
import { Deadline } from "../store";
import { runRetentionGc, type ScheduledGcServices } from "./scheduled-gc";

/** How often a long-lived server runs gc by itself. */
export const GC_INTERVAL_MS = 60 * 60_000;

/** The first run comes this soon after the start, so a server restarted often still runs it. */
const FIRST_GC_DELAY_MS = 60_000;

/** One run's bound on every store call: well inside the hour, so runs never pile up. */
const GC_RUN_DEADLINE_MS = 5 * 60_000;

/**
 * A long-lived server's (`next start`) gc, as a server job: a minute after the start, then once an
 * hour, audited as `server`. Not for Vercel, where `GET /api/cron/gc` is scheduled instead.
 */
export function hourlyGcJob(
  services: ScheduledGcServices,
  { intervalMs = GC_INTERVAL_MS, firstDelayMs = FIRST_GC_DELAY_MS } = {},
): ServerJob {
  return {
    name: "gc",
    firstAfterMs: firstDelayMs,
    everyMs: intervalMs,
    async run() {
      await runRetentionGc(services, { actor: "server", call: Deadline.in(GC_RUN_DEADLINE_MS).options });
    },
  };
}

/** `hourlyGcJob` started alone (its tests); the server starts it with the others (lib/startup.ts). */
export function startHourlyGc(
  services: ScheduledGcServices,
  options: { intervalMs?: number; firstDelayMs?: number } = {},
): () => void {
  return startServerJobs([hourlyGcJob(services, options)]);
}
