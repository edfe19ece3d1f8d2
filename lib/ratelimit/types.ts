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

/** A window `Cooldown.claim` opened; give it back when what it was for did not happen. */
export interface CooldownClaim {
  /** Ends this claim's window early, so the next attempt is not held back; a no-op once it ended. */
  release(): Promise<void>;
}

/**
 * At most one of something per subject per window (a confirmation email per address per 10
 * minutes), counted where the rate limits are: in process memory, or in Redis, so that every
 * instance shares it.
 */
export interface Cooldown {
  readonly driver: "memory" | "upstash";
  /**
   * Opens the subject's window and answers the claim; `null` while a window is open. Rejects with
   * `CooldownUnavailableError` when it cannot tell (Redis down or slow): nothing is to be sent then.
   */
  claim(subject: string): Promise<CooldownClaim | null>;
}
