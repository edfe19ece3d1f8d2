import type { Config, RateLimitRule } from "../config";
import { describeWait } from "../format";
import { ApiError } from "../http/errors";
import { MemoryCooldown, UpstashCooldown } from "./cooldown";
import { MemoryRateLimiter } from "./memory";
import type { Cooldown, RateLimitDecision, RateLimiter } from "./types";
import { createRedisClient, UpstashRateLimiter } from "./upstash";

export { CooldownUnavailableError, releasedOnFailure } from "./cooldown";
export type { Cooldown, CooldownClaim, RateLimitDecision, RateLimiter } from "./types";

/**
 * One budget per endpoint; `upload` counts the upload tokens `POST /api/contact/upload` issues,
 * `confirm` the newsletter's confirmation posts (under `NEWSLETTER_RATE_LIMIT`'s rule, a budget of
 * their own). Unsubscribing has none: the signed link is the authority, and mail providers post it.
 */
export type RateLimitPolicy =
  "contact" | "newsletter" | "confirm" | "upload" | "opsSignInAddress" | "opsSignInClient";

/**
 * The inbox's sign-in: at most 5 requests per 15 minutes from one client address (past that, 429),
 * so nobody can try addresses in bulk; and, apart, at most 5 links per 15 minutes to one listed
 * address (past that, nothing is sent and the answer is the same), so nobody can flood an ops
 * mailbox, nor turn its owner's own request into a 429.
 */
export const OPS_SIGN_IN_RULE: RateLimitRule = { limit: 5, windowMs: 15 * 60_000, source: "5/15m" };

export type RateLimiters = Record<RateLimitPolicy, RateLimiter>;

/**
 * One limiter per endpoint, from the configured driver: shared through Redis when it is set up.
 * While Redis fails, every one lets requests through except `opsSignInAddress`, which refuses them.
 */
export function createRateLimiters(config: Config): RateLimiters {
  if (config.redis) {
    const redis = createRedisClient(config.redis);
    // IP_HASH_SALT, never the random salt drawn when it is unset: instances must share the keys.
    const options = config.ipHashSalt === null ? {} : { subjectSecret: config.ipHashSalt };
    return {
      contact: new UpstashRateLimiter(redis, "contact", config.rateLimits.contact, options),
      newsletter: new UpstashRateLimiter(redis, "newsletter", config.rateLimits.newsletter, options),
      confirm: new UpstashRateLimiter(redis, "newsletter-confirm", config.rateLimits.newsletter, options),
      upload: new UpstashRateLimiter(redis, "upload", config.rateLimits.upload, options),
      // It guards the sign-in email: while Redis cannot count, no link goes out (the answer is the same).
      opsSignInAddress: new UpstashRateLimiter(redis, "ops-sign-in-address", OPS_SIGN_IN_RULE, {
        ...options,
        failClosed: true,
      }),
      opsSignInClient: new UpstashRateLimiter(redis, "ops-sign-in-client", OPS_SIGN_IN_RULE, options),
    };
  }
  return {
    contact: new MemoryRateLimiter(config.rateLimits.contact),
    newsletter: new MemoryRateLimiter(config.rateLimits.newsletter),
    confirm: new MemoryRateLimiter(config.rateLimits.newsletter),
    upload: new MemoryRateLimiter(config.rateLimits.upload),
    opsSignInAddress: new MemoryRateLimiter(OPS_SIGN_IN_RULE),
    opsSignInClient: new MemoryRateLimiter(OPS_SIGN_IN_RULE),
  };
}

/**
 * What is held to once per address per window: `confirmation`, the newsletter's confirmation
 * email; `acknowledgment`, the email acknowledging a brief to its sender.
 */
export type CooldownPolicy = "confirmation" | "acknowledgment";

export type Cooldowns = Record<CooldownPolicy, Cooldown>;

/** The contract's window for emails to one address: at most one per 10 minutes. */
export const EMAIL_COOLDOWN_MS = 600_000;

/**
 * One cooldown per policy, in the same store as the rate limits: shared through Redis when it is
 * set up, and then failing closed (see `UpstashCooldown`).
 */
export function createCooldowns(config: Config): Cooldowns {
  if (config.redis) {
    const redis = createRedisClient(config.redis);
    const options = config.ipHashSalt === null ? {} : { subjectSecret: config.ipHashSalt };
    return {
      confirmation: new UpstashCooldown(redis, "confirmation", EMAIL_COOLDOWN_MS, options),
      acknowledgment: new UpstashCooldown(redis, "acknowledgment", EMAIL_COOLDOWN_MS, options),
    };
  }
  return {
    confirmation: new MemoryCooldown(EMAIL_COOLDOWN_MS),
    acknowledgment: new MemoryCooldown(EMAIL_COOLDOWN_MS),
  };
}

/** `RateLimit-*` headers (reset in whole seconds), and `Retry-After` when refused. */
export function rateLimitHeaders(decision: RateLimitDecision, now = Date.now()): Record<string, string> {
  const reset = Math.max(Math.ceil((decision.resetAt - now) / 1000), 1);
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(reset),
  };
  if (!decision.allowed) headers["Retry-After"] = String(reset);
  return headers;
}

/** Counts the request; throws 429 (with `Retry-After`) when over, else returns the headers to send. */
export async function enforceRateLimit(
  limiter: RateLimiter,
  subject: string,
): Promise<Record<string, string>> {
  const decision = await limiter.consume(subject);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    const wait = Number(headers["Retry-After"]);
    throw new ApiError("rate_limited", `Too many requests. Please try again in ${describeWait(wait)}.`, {
      headers,
    });
  }
  return headers;
}
