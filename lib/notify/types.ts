import type { AttachmentRecord, BriefRecord } from "../briefs/record";
import type { FailureDetails } from "./failure";

/** The notification channels, in the order `forwarded` lists them. */
export const CHANNEL_NAMES = ["webhook", "email", "slack"] as const;

export type ChannelName = (typeof CHANNEL_NAMES)[number];

/** What a channel is told about a stored brief. */
export interface BriefNotice {
  /** The brief as stored in `brief.json`: every payload is built from this. */
  record: BriefRecord;
  /** The attached file; `null` when the brief has no file. */
  attachment: NoticeAttachment | null;
  /** Where the brief is stored, e.g. `briefs/2026/11/22/<reference>`. */
  folder: string;
}

/** The attached file as a channel gets it: what `brief.json` says of it, and its bytes on demand. */
export interface NoticeAttachment {
  record: AttachmentRecord;
  /**
   * The file's bytes as a stream, read as they are sent (from the store: never whole in memory).
   * `signal` bounds the opening; the stream is then the caller's to read or cancel.
   */
  open(signal: AbortSignal): Promise<ReadableStream<Uint8Array>>;
}

/** One way of telling ops about a brief. */
export interface Channel {
  readonly name: ChannelName;
  /**
   * Resolves once the receiving end has accepted the brief, with the status it answered (HTTP
   * status, SMTP reply code) when it gave one; rejects with the reason it did not accept it.
   * Stops its work (sockets included) when `signal` aborts.
   */
  deliver(notice: BriefNotice, signal: AbortSignal): Promise<number | undefined>;
}

/** How one channel's attempt ended. */
export interface DeliveryOutcome {
  ok: boolean;
  /** ISO 8601 UTC: when the outcome was known. */
  at: string;
  /** How long the attempt took. */
  ms: number;
  /** Why it failed, in one line; absent on success. */
  error?: string;
  /** On success: the status the other end answered (HTTP status, SMTP reply code), when it gave one. */
  status?: number;
  /** On failure: the status the other end answered and whether another attempt may help. */
  failure?: FailureDetails;
}

/** What the fan-out found: one outcome per channel it tried, by name. */
export type ChannelOutcomes = Partial<Record<ChannelName, DeliveryOutcome>>;
