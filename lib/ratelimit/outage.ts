/** While Redis is failing, one warning per counter per this period, with a count, not one per request. */
const WARNING_INTERVAL_MS = 10_000;

/**
 * What a counter does with what it guards while Redis fails: `open` lets the request through
 * unchecked (the rate limits: losing a brief would be worse than a flood); `closed` holds back the
 * email it guards (the per-address windows: an unchecked one could flood someone's mailbox).
 */
export type FailureMode = "open" | "closed";

/** How the warnings count what went by: `<count> <what> under <prefix> <how>`. */
const OUTCOME: Record<FailureMode, { what: string; how: string }> = {
  open: { what: "request(s)", how: "let through unchecked" },
  closed: { what: "email(s)", how: "held back" },
};

/**
 * The warnings of one Redis-backed counter while Redis fails: the first failure at once, then one
 * per 10 s with the number let through (or held back) since, and a line when Redis answers again.
 */
export class OutageLog {
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  private failedSinceWarning = 0;
  private readonly outcome: { what: string; how: string };

  constructor(
    private readonly prefix: string,
    private readonly warn: (message: string) => void,
    private readonly now: () => number,
    mode: FailureMode = "open",
  ) {
    this.outcome = OUTCOME[mode];
  }

  /** One request went on unchecked, or one email was held back, because of `problem`. */
  failed(problem: string): void {
    const now = this.now();
    this.failedSinceWarning += 1;
    if (now - this.lastWarningAt >= WARNING_INTERVAL_MS) {
      const { what, how } = this.outcome;
      this.warn(`[ratelimit] ${problem}; ${this.failedSinceWarning} ${what} under ${this.prefix} ${how}`);
      this.lastWarningAt = now;
      this.failedSinceWarning = 0;
    }
  }

  /** Redis answered: after an outage, say so, and let the next outage warn at once. */
  answered(): void {
    if (this.lastWarningAt === Number.NEGATIVE_INFINITY) return;
    const failed = this.failedSinceWarning;
    const { what, how } = this.outcome;
    this.warn(`[ratelimit] Redis answers again${failed > 0 ? ` (${failed} more ${what} ${how})` : ""}`);
    this.lastWarningAt = Number.NEGATIVE_INFINITY;
    this.failedSinceWarning = 0;
  }
}
