import type { AcknowledgmentOutcome, BriefRecord } from "../briefs";
import type { ChannelName, ChannelOutcomes } from "../notify";

/** What part 4 retries: a notification channel, or the acknowledgment to the submitter. */
export type Target = ChannelName | "acknowledgment";

/** Emails a brief's sender; bounded by the channels' own bound, and never rejects. */
export interface BriefAcknowledger {
  acknowledge(record: BriefRecord): Promise<AcknowledgmentOutcome>;
}

/** What one round of attempts found: each channel's outcome, and the acknowledgment's when it was sent. */
export type AttemptOutcomes = ChannelOutcomes & { acknowledgment?: AcknowledgmentOutcome };

/** A due attempt's place in the store: `deliveries/due/<reference>.<channel>.json`. */
export interface DueRecord {
  reference: string;
  /** The brief's folder, e.g. `briefs/2026/11/22/<reference>`. */
  folder: string;
  channel: Target;
  /** ISO 8601 UTC. */
  dueAt: string;
  /** While an attempt is under way: until when it is someone's (60 s from its claim). */
  leaseUntil?: string;
}

/** A channel that gave up: `deliveries/failed/<reference>.<channel>.json`. */
export interface FailedRecord {
  reference: string;
  folder: string;
  channel: Target;
  /** ISO 8601 UTC: when it gave up. */
  at: string;
  error: string;
}

/** What a round of due attempts did (the cron route's answer, without `ok`). */
export interface RunCounts {
  attempted: number;
  delivered: number;
  failed: number;
  retrying: number;
}
