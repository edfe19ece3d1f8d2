import type { ConfigReader } from "./reader";
import type { Config } from "./types";
import { isEmailAddress, list, wholeNumber } from "./values";

/** The shortest `CRON_SECRET` taken (Vercel asks for at least 16 random characters). */
export const CRON_SECRET_MIN_LENGTH = 16;

/** `CRON_SECRET`: the bearer token of the scheduled jobs, or `null` (they answer 404). */
export function parseCronSecret({ raw, problems }: ConfigReader): Config["cronSecret"] {
  const cronSecret = raw.CRON_SECRET ?? null;
  if (cronSecret !== null && [...cronSecret].length < CRON_SECRET_MIN_LENGTH) {
    problems.push(
      `CRON_SECRET must be at least ${CRON_SECRET_MIN_LENGTH} characters (e.g. openssl rand -base64 32)`,
    );
  }
  return cronSecret;
}

/** The longest `RETENTION_DAYS` taken: a hundred years, past which "forever" is meant. */
const RETENTION_DAYS_MAX = 36_500;

/** `RETENTION_DAYS`: how many days gc keeps briefs and spam, or `null` (kept forever). */
export function parseRetentionDays({ raw, read }: ConfigReader): Config["retentionDays"] {
  return read(raw.RETENTION_DAYS, wholeNumber("RETENTION_DAYS", 1, RETENTION_DAYS_MAX), null);
}

/**
 * `OPS_EMAILS`: the inbox on the web, or `null` (off). Its sign-in links are signed and emailed,
 * so it needs the link key (`linkSigningSecret`, already read) and the sender.
 */
export function parseOpsOnTheWeb(
  { raw, problems }: ConfigReader,
  linkSigningSecret: string | null,
): Config["ops"] {
  let ops: Config["ops"] = null;
  if (raw.OPS_EMAILS) {
    const emails = list(raw.OPS_EMAILS).map((address) => address.toLowerCase());
    const invalid = emails.filter((address) => !isEmailAddress(address));
    if (emails.length === 0 || invalid.length > 0) {
      problems.push(
        `OPS_EMAILS must be a comma-separated list of addresses${invalid.length > 0 ? `; not one: ${invalid.join(", ")}` : ""}`,
      );
    }
    // Sign-in links are signed and emailed: without these the inbox could never be opened.
    const missing = [
      ...(linkSigningSecret === null ? ["LINK_SIGNING_SECRET (at least 32 characters)"] : []),
      ...(raw.SMTP_URL ? [] : ["SMTP_URL"]),
      ...(raw.EMAIL_FROM ? [] : ["EMAIL_FROM"]),
    ];
    if (missing.length > 0) {
      problems.push(
        `OPS_EMAILS turns on the inbox on the web, which emails signed sign-in links: ${missing.join(", ")} not set`,
      );
    }
    ops = { emails: [...new Set(emails)] };
  }
  return ops;
}
