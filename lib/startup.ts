import { ConfigError, proxyHopsWarning } from "./config";
import { dueDeliveriesJob } from "./deliveries";
import { hourlyGcJob } from "./ops-web";
import { startServerJobs } from "./server-jobs";
import { getServices } from "./services";

/**
 * Parses the configuration and builds the integrations when the server starts, so a malformed
 * variable stops `next start` with a message naming it instead of surfacing later as a 500 on a
 * visitor's request. Then says what the server assumes about proxies in front of it: only a
 * server that answers requests has clients to count (the ops tool builds the same services and
 * does not warn). A long-lived server also makes due delivery attempts by itself (a look every
 * 10 s) and runs gc once an hour; on Vercel, which runs nothing between requests, QStash and the
 * scheduled routes (`/api/cron/deliveries`, `/api/cron/gc`) do that instead.
 */
export function startUp(): void {
  try {
    const services = getServices();
    const warning = proxyHopsWarning(services.config);
    if (warning !== null) console.warn(`[config] ${warning}`);
    if (!services.config.onVercel) {
      startServerJobs([dueDeliveriesJob(services.deliveries), hourlyGcJob(services)]);
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`\n${error.message}\n\nSee .env.example for every variable and its format.\n`);
    process.exit(1);
  }
}
