import { parseEmail, parseWebhook } from "./channels";
import { parseDeliveries } from "./deliveries";
import { parseEmailRoutes, parseSlack, parseSpamRules } from "./leads";
import { parseCronSecret, parseOpsOnTheWeb, parseRetentionDays } from "./ops";
import { configReader } from "./reader";
import { parseSite } from "./site";
import { parseStorageAndLimits } from "./storage";
import { parseTurnstile } from "./turnstile";
import type { Config } from "./types";
import { ConfigError } from "./values";
import { parseVisitorEmails, readVisitorEmailFlags } from "./visitor-email";

/**
 * Every variable, section by section. The order is the order of the messages: a start refused
 * for several reasons lists them as the sections meet them, the same way every time.
 */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const reader = configReader(env);
  const site = parseSite(reader);
  const storage = parseStorageAndLimits(reader);
  const webhook = parseWebhook(reader);
  const visitorEmailFlags = readVisitorEmailFlags(reader);
  const { email, visitorEmail } = parseEmail(reader, visitorEmailFlags.features);
  const emailRoutes = parseEmailRoutes(reader);
  const slack = parseSlack(reader);
  const turnstile = parseTurnstile(reader);
  const visitorEmails = parseVisitorEmails(reader, visitorEmailFlags, { email, turnstile });
  const deliveries = parseDeliveries(reader);
  const cronSecret = parseCronSecret(reader);
  const retentionDays = parseRetentionDays(reader);
  const ops = parseOpsOnTheWeb(reader, visitorEmails.linkSigningSecret);
  const spamRules = parseSpamRules(reader);

  const { problems, warnings } = reader;
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${problems.map((line) => `  - ${line}`).join("\n")}`);
  }

  return {
    siteOrigin: site.siteOrigin,
    siteName: site.siteName,
    allowedOrigins: site.allowedOrigins,
    trustedProxyHops: site.trustedProxyHops,
    onVercel: site.onVercel,
    inbox: storage.inbox,
    redis: storage.redis,
    rateLimits: storage.rateLimits,
    webhook,
    email,
    emailRoutes,
    slack,
    spamRules,
    notifyTimeoutMs: storage.notifyTimeoutMs,
    ipHashSalt: storage.ipHashSalt,
    turnstile,
    visitorEmail,
    linkSigningSecret: visitorEmails.linkSigningSecret,
    newsletterDoubleOptIn: visitorEmails.newsletterDoubleOptIn,
    replyTo: visitorEmails.replyTo,
    acknowledgment: visitorEmails.acknowledgment,
    retrySchedule: deliveries.retrySchedule,
    qstash: deliveries.qstash,
    cronSecret,
    retentionDays,
    ops,
    warnings,
  };
}
