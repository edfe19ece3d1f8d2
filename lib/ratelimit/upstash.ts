import { createHmac } from "node:crypto";
import type { Ratelimit } from "@upstash/ratelimit";
import type { Redis } from "@upstash/redis";
import { loadOnce } from "../load-once";
import type { RateLimitRule } from "../config";
import { type FailureMode, OutageLog } from "./outage";
import type { RateLimitDecision, RateLimiter } from "./types";

/**
 * How long a limit check may wait for Redis before the request goes on unchecked (or, for a
 * window that guards an email, before the email is held back). The contract allows 1.5 s; the
 * rest is margin for the request's own work.
 */
export const REDIS_TIMEOUT_MS = 800;

/**
 * The key for subjects' hashes when no `IP_HASH_SALT` is set. Fixed, not random per process: every
 * instance (and the next deploy) must compute the same keys to count against one budget. Without a
 * secret the hashes are pseudonyms only: an IPv4 address can be recovered by trying them all.
 */
export const DEFAULT_SUBJECT_KEY = "intake:ratelimit:subject:v1";

/**
 * What Redis holds for a subject (a client address, or an IPv6 /64): a keyed hash, so no Redis
 * key, and no error that quotes a command, ever carries the address. Domain-separated from the
 * brief's `client.ipHash`, which uses the same salt.
 */
export function subjectKey(subject: string, secret: string, domain = "ratelimit"): string {
  return createHmac("sha256", secret).update(`${domain}:${subject}`).digest("hex").slice(0, 32);
}

/** The Upstash Redis client, made (and `@upstash/redis` loaded) at its first use. */
export type RedisClient = () => Promise<Redis>;

/**
 * One client per process for every limiter. Each REST call carries its own abort signal (the
 * client's default is no bound at all) and is retried once on a network error (the default
 * retries five times over about four seconds).
 */
export function createRedisClient(
  redis: { url: string; token: string },
  timeoutMs: number = REDIS_TIMEOUT_MS,
): RedisClient {
  return loadOnce(async () => {
    const { Redis } = await import("@upstash/redis");
    return new Redis({
      url: redis.url,
      token: redis.token,
      retry: { retries: 1, backoff: () => 50 },
      signal: () => AbortSignal.timeout(timeoutMs),
      enableTelemetry: false,
    });
  });
}

export interface UpstashRateLimiterOptions {
  /** Keys `subjectKey`: `IP_HASH_SALT` when it is set, the same on every instance. */
  subjectSecret?: string;
  timeoutMs?: number;
  /**
   * Refuse (`allowed: false`) instead of allowing while Redis fails or is slow: for a budget that
   * guards an email to an address, where letting requests through unchecked could flood a mailbox.
   */
  failClosed?: boolean;
  warn?: (message: string) => void;
  now?: () => number;
}

/**
 * A limit shared by every instance through Redis: `@upstash/ratelimit`'s sliding window (the
 * current fixed window plus the previous one, weighted by how much of it still overlaps), under
 * one key prefix per policy, each subject under its `subjectKey`. When Redis is slow, down or
 * answers with an error, the request goes on as if allowed, within `timeoutMs`, and a throttled
 * warning is logged: limits are a guard against floods, and losing briefs because Redis is
 * unavailable would be worse. With `failClosed` it is refused instead (see the option).
 */
export class UpstashRateLimiter implements RateLimiter {
  readonly driver = "upstash";
  readonly prefix: string;
  private readonly ratelimit: () => Promise<Ratelimit>;
  private readonly rule: RateLimitRule;
  private readonly subjectSecret: string;
  private readonly now: () => number;
  private readonly outage: OutageLog;
  private readonly failure: FailureMode;

  constructor(
    redis: RedisClient,
    policy: string,
    rule: RateLimitRule,
    options: UpstashRateLimiterOptions = {},
  ) {
    this.rule = rule;
    this.prefix = `intake:ratelimit:${policy}`;
    this.subjectSecret = options.subjectSecret ?? DEFAULT_SUBJECT_KEY;
    this.now = options.now ?? Date.now;
    this.failure = options.failClosed ? "closed" : "open";
    const warn = options.warn ?? ((message: string) => console.warn(message));
    this.outage = new OutageLog(this.prefix, warn, this.now, this.failure);
    this.ratelimit = loadOnce(async () => {
      const [{ Ratelimit }, client] = await Promise.all([import("@upstash/ratelimit"), redis()]);
      return new Ratelimit({
        redis: client,
        prefix: this.prefix,
        limiter: Ratelimit.slidingWindow(rule.limit, `${rule.windowMs} ms`),
        // Answers `success: true, reason: "timeout"` when Redis has not answered by then.
        timeout: options.timeoutMs ?? REDIS_TIMEOUT_MS,
        // The in-process cache of refused subjects grows without bound under spoofed addresses,
        // and it would answer for Redis: every decision comes from the shared state instead.
        ephemeralCache: false,
        analytics: false,
        enableProtection: false,
        enableTelemetry: false,
      });
    });
  }

  async consume(subject: string): Promise<RateLimitDecision> {
    try {
      const ratelimit = await this.ratelimit();
      const result = await ratelimit.limit(subjectKey(subject, this.subjectSecret));
      if (result.reason === "timeout") return this.unchecked(REDIS_TOO_SLOW);
      this.outage.answered();
      return {
        allowed: result.success,
        limit: result.limit,
        remaining: result.remaining,
        resetAt: result.reset,
      };
    } catch (error) {
      return this.unchecked(describeRedisProblem(error));
    }
  }

  /**
   * Failing open: allowed, reported as the first in a fresh window. Failing closed: refused, none
   * left. Either way the count is unknown.
   */
  private unchecked(problem: string): RateLimitDecision {
    const now = this.now();
    this.outage.failed(problem);
    const allowed = this.failure === "open";
    return {
      allowed,
      limit: this.rule.limit,
      remaining: allowed ? this.rule.limit - 1 : 0,
      resetAt: now + this.rule.windowMs,
    };
  }
}

const REDIS_TOO_SLOW = "Redis did not answer in time";

/** What went wrong with a Redis call, in one line for the warning: too slow, or how it failed. */
export function describeRedisProblem(error: unknown): string {
  // The client's own per-request bound (an abort) can beat the limiter's timeout.
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return REDIS_TOO_SLOW;
  }
  return `Redis failed: ${describeRedisFailure(error)}`;
}

/**
 * One line about a failure, without what `@upstash/redis` appends to an error answer (`, command
 * was: [...]`): the whole request, every key and argument, which is no help to ops and is where a
 * client's identity would show.
 */
export function describeRedisFailure(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/, command was: [\s\S]*$/, "").slice(0, 300);
}
