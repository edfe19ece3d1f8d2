/**
 * Every environment variable the service reads, parsed once. Nothing else in the code base
 * touches `process.env`: an integration that is not set up is an explicit `null` here, and a
 * malformed value throws a `ConfigError` naming the variable (at start, from `instrumentation.ts`).
 */
import { parseConfig } from "./parse";
import type { Config } from "./types";

export { webhookSecretBytes } from "./channels";
export { CRON_SECRET_MIN_LENGTH } from "./ops";
export { parseConfig } from "./parse";
export { proxyHopsWarning } from "./site";
export { type SmtpTls, smtpTls } from "./smtp";
export { TURNSTILE_SITEVERIFY_URL } from "./turnstile";
export type { Config, EmailRoutes, SpamRules, TurnstileSettings } from "./types";
export {
  asciiDomain,
  ConfigError,
  type Mailbox,
  parseMailbox,
  parseRateLimitRule,
  type RateLimitRule,
} from "./values";
export { LINK_SIGNING_SECRET_MIN_LENGTH } from "./visitor-email";

let cached: Config | undefined;

/** The process's configuration, parsed on first use (at start, through `instrumentation.ts`). */
export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
