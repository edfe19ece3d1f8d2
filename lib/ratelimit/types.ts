export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch milliseconds at which the next request would be counted in a fresh slot. */
  resetAt: number;
}

/** One named policy (e.g. "contact"): counts a subject's requests in a sliding window. */
export interface RateLimiter {
  readonly driver: "memory" | "upstash";
  consume(subject: string): Promise<RateLimitDecision>;
}
