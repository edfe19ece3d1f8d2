/**
 * How long a claimed attempt is its claimant's. The lease must outlast everything the claimant
 * does under it, or a second claimant could send the same attempt while the first is still at it:
 * the store calls before the send, the send (`NOTIFY_TIMEOUT_MS`), the store calls that record
 * its outcome, the "gave up" alert (`NOTIFY_TIMEOUT_MS` again), and a margin within which a remote
 * write sent before the claimant's own deadline may still land. No imports: lib/config checks
 * `NOTIFY_TIMEOUT_MS` against the same numbers at start.
 */

/** The store calls before the send (the brief, its log, the claim checked, the attachment's size). */
export const BEFORE_SEND_MS = 8_000;

/** The store calls after it (the claim checked, the log, the next due record or the failed one). */
export const AFTER_SEND_MS = 16_000;

/**
 * Past the claimant's own deadline, a write it sent may still land this long after (a Vercel Blob
 * call is bounded at 8 s); nobody else may claim the attempt until then.
 */
export const LEASE_MARGIN_MS = 16_000;

/** The shortest lease: a short `NOTIFY_TIMEOUT_MS` keeps Part 4's 60 s. */
export const MIN_LEASE_MS = 60_000;

/**
 * The longest lease: a server that stops mid-attempt holds that attempt back this long, and the
 * retry schedule's early steps (5 s, 5 min) are meant to be kept to within minutes.
 */
export const MAX_LEASE_MS = 10 * 60_000;

/** The lease an attempt needs when each send may take `notifyTimeoutMs`. */
export function leaseFor(notifyTimeoutMs: number): number {
  return Math.max(MIN_LEASE_MS, BEFORE_SEND_MS + 2 * notifyTimeoutMs + AFTER_SEND_MS + LEASE_MARGIN_MS);
}

/** The largest `NOTIFY_TIMEOUT_MS` a lease can cover: 280 s. */
export const MAX_NOTIFY_TIMEOUT_MS = Math.floor(
  (MAX_LEASE_MS - BEFORE_SEND_MS - AFTER_SEND_MS - LEASE_MARGIN_MS) / 2,
);
