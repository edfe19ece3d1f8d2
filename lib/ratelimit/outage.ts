/** While Redis is failing, one warning per counter per this period, with a count, not one per request. */
const WARNING_INTERVAL_MS = 10_000;

/**
 * The warnings of one Redis-backed counter that lets requests through while Redis fails: the
 * first failure at once, then one per 10 s with the number let through unchecked, and a line
 * when Redis answers again.
 */
export class OutageLog {
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  private uncheckedSinceWarning = 0;

  constructor(
    private readonly prefix: string,
    private readonly warn: (message: string) => void,
    private readonly now: () => number,
  ) {}

  /** One request went on unchecked because of `problem`. */
  failedOpen(problem: string): void {
    const now = this.now();
    this.uncheckedSinceWarning += 1;
    if (now - this.lastWarningAt >= WARNING_INTERVAL_MS) {
      this.warn(
        `[ratelimit] ${problem}; ${this.uncheckedSinceWarning} request(s) under ${this.prefix} let through unchecked`,
      );
      this.lastWarningAt = now;
      this.uncheckedSinceWarning = 0;
    }
  }

  /** Redis answered: after an outage, say so, and let the next outage warn at once. */
  answered(): void {
    if (this.lastWarningAt === Number.NEGATIVE_INFINITY) return;
    const unchecked = this.uncheckedSinceWarning;
    this.warn(
      `[ratelimit] Redis answers again${unchecked > 0 ? ` (${unchecked} more request(s) let through unchecked)` : ""}`,
    );
    this.lastWarningAt = Number.NEGATIVE_INFINITY;
    this.uncheckedSinceWarning = 0;
  }
}
