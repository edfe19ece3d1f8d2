import { type AcknowledgmentDelivery, type AttemptEntry, type ChannelDelivery, LOG_LENGTH } from "../briefs";
import type { AcknowledgmentOutcome } from "../briefs";
import type { DeliveryOutcome } from "../notify";

/** An attempt's outcome, channel's or acknowledgment's, as the log needs it. */
export type Outcome = DeliveryOutcome | AcknowledgmentOutcome;

/** The log's entry for one attempt. */
export function logEntry(outcome: Outcome): AttemptEntry {
  const entry: AttemptEntry = { at: outcome.at, ok: outcome.ok, ms: outcome.ms ?? 0 };
  const status = outcome.status ?? outcome.failure?.status;
  if (status !== undefined) entry.status = status;
  if (!outcome.ok && outcome.error !== undefined) entry.error = outcome.error;
  return entry;
}

/**
 * A channel's record after one more attempt: `previous` (absent for a brief's first) with the
 * attempt counted and logged (the last 20 kept), and its state: `delivered`, `retrying` until
 * `next`, or `failed` when there is no next attempt.
 */
export function recordAttempt(
  previous: ChannelDelivery | undefined,
  outcome: Outcome,
  next: Date | null,
): AcknowledgmentDelivery {
  const log = [...(previous?.log ?? []), logEntry(outcome)].slice(-LOG_LENGTH);
  const attempts = (previous?.attempts ?? 0) + 1;
  if (outcome.ok) return { state: "delivered", ok: true, at: outcome.at, attempts, log };
  const record: AcknowledgmentDelivery = {
    state: next === null ? "failed" : "retrying",
    ok: false,
    at: outcome.at,
    attempts,
    ...(next === null ? {} : { nextAttemptAt: next.toISOString() }),
    error: outcome.error ?? "unknown error",
    log,
  };
  if ("suppressed" in outcome && outcome.suppressed) record.suppressed = true;
  return record;
}
