import { ConfigError, proxyHopsWarning } from "./config";
import { startHourlyGc } from "./ops-web";
import { getServices } from "./services";

/**
 * Parses the configuration and builds the integrations when the server starts, so a malformed
 * variable stops `next start` with a message naming it instead of surfacing later as a 500 on a
 * visitor's request. Then says what the server assumes about proxies in front of it: only a
 * server that answers requests has clients to count (the ops tool builds the same services and
 * does not warn). A long-lived server also runs gc by itself once an hour (on Vercel, which runs
 * nothing between requests, `GET /api/cron/gc` is scheduled instead).
 */
export function startUp(): void {
  try {
    const services = getServices();
    const warning = proxyHopsWarning(services.config);
    if (warning !== null) console.warn(`[config] ${warning}`);
    if (!services.config.onVercel) startHourlyGc(services);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`\n${error.message}\n\nSee .env.example for every variable and its format.\n`);
    process.exit(1);
  }
}
