import { ConfigError } from "./config";
import { getServices } from "./services";

/**
 * Parses the configuration and builds the integrations when the server starts, so a malformed
 * variable stops `next start` with a message naming it instead of surfacing later as a 500 on a
 * visitor's request.
 */
export function startUp(): void {
  try {
    getServices();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`\n${error.message}\n\nSee .env.example for every variable and its format.\n`);
    process.exit(1);
  }
}
