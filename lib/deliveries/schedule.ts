import type { FailureDetails } from "../notify";

/** Each wait varies at random by up to this share, so retries of many briefs do not arrive together. */
const JITTER = 0.1;

/** A `Retry-After` is honoured up to this much beyond the schedule's own step. */
const RETRY_AFTER_SLACK_MS = 60 * 60 * 1000;

/**
 * When the next attempt is due after the `attempts`-th attempt failed with `failure`, or `null`
 * when there is none: the failure is not worth retrying, or the schedule has run out. The wait is
 * the schedule's step for this attempt, varied by up to ±10%, and at least the receiver's
 * `Retry-After` (but at most an hour more than the step).
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attempts: number,
  failure: FailureDetails | undefined,
  now: Date,
  random: () => number = Math.random,
): Date | null {
  if (failure !== undefined && !failure.retryable) return null;
  const step = schedule[attempts - 1];
  if (step === undefined) return null;
  let wait = step * (1 + (random() * 2 - 1) * JITTER);
  if (failure?.retryAfterMs !== undefined) {
    wait = Math.max(wait, Math.min(failure.retryAfterMs, step + RETRY_AFTER_SLACK_MS));
  }
  return new Date(now.getTime() + Math.round(wait));
}

/** The acknowledgment is retried only while the brief is this young: later, a "we got it" is news to nobody. */
export const ACKNOWLEDGMENT_RETRY_WINDOW_MS = 2 * 60 * 60 * 1000;
