import { describeFailure } from "./notify";

/** Work a long-lived server (`next start`) does by itself, on a timer. */
export interface ServerJob {
  /** For the log: `gc`, `delivery`. */
  name: string;
  /** The first run, this long after the start. */
  firstAfterMs: number;
  /** Then every this long. */
  everyMs: number;
  run(): Promise<void>;
}

/**
 * Starts `jobs` on their timers, each one run at a time (a run still going when the next is due is
 * not doubled), a failure logged and the next run left to try again. The timers are unref'd (they
 * never keep the process up) and stop on SIGTERM, so the server stops as it would without them.
 * Never a timer per brief: one per job for the whole process. Returns the stop function.
 * Not for Vercel, where functions sleep between requests: there scheduled routes and QStash do this.
 */
export function startServerJobs(jobs: readonly ServerJob[]): () => void {
  const timers: ReturnType<typeof setTimeout>[] = [];
  for (const job of jobs) {
    let running = false;
    const run = async () => {
      if (running) return;
      running = true;
      try {
        await job.run();
      } catch (error) {
        console.warn(
          `[${job.name}] a scheduled run failed, the next one tries again: ${describeFailure(error)}`,
        );
      } finally {
        running = false;
      }
    };
    timers.push(setTimeout(() => void run(), job.firstAfterMs).unref());
    timers.push(setInterval(() => void run(), job.everyMs).unref());
  }
  const stop = () => {
    for (const timer of timers) clearTimeout(timer);
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
