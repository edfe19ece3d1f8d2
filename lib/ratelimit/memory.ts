import type { RateLimitRule } from "../config";
import type { RateLimitDecision, RateLimiter } from "./types";

/** How many subjects one process tracks before it forgets the stalest (an address-spoofing flood). */
const MAX_SUBJECTS = 100_000;

/**
 * An exact sliding window kept in this process: each subject's last `limit` request times.
 * Right for one `next start`; several instances need the shared Redis driver.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly driver = "memory";
  private readonly hits = new Map<string, number[]>();
  private readonly rule: RateLimitRule;
  private readonly now: () => number;

  constructor(rule: RateLimitRule, now: () => number = Date.now) {
    this.rule = rule;
    this.now = now;
  }

  async consume(subject: string): Promise<RateLimitDecision> {
    const now = this.now();
    const { limit, windowMs } = this.rule;
    const recent = (this.hits.get(subject) ?? []).filter((time) => time > now - windowMs);
    const allowed = recent.length < limit;
    if (allowed) recent.push(now);

    // Re-inserting keeps the map ordered by last use, so the stalest subjects come first.
    this.hits.delete(subject);
    this.hits.set(subject, recent);
    if (this.hits.size > MAX_SUBJECTS) this.forgetStalest();

    const oldest = recent[0] ?? now;
    return { allowed, limit, remaining: Math.max(limit - recent.length, 0), resetAt: oldest + windowMs };
  }

  /** Drops the least recently seen subjects; under a flood of distinct addresses, forgetting beats growing. */
  private forgetStalest(): void {
    for (const subject of this.hits.keys()) {
      if (this.hits.size <= MAX_SUBJECTS * 0.9) break;
      this.hits.delete(subject);
    }
  }
}
