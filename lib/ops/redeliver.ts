import { notifyAndAcknowledge } from "../contact/acknowledge";
import type { ObjectStore } from "../store";
import {
  type BriefNotice,
  CHANNEL_NAMES,
  type ChannelName,
  type DeliveryOutcome,
  describeFailure,
  type NoticeAttachment,
} from "../notify";
import { type Delivery, writeDelivery } from "../briefs";
import type { NotifyingInbox } from "./deps";
import { readAttachment } from "./reader";
import type { StoredBrief } from "./records";

/**
 * A brief without `delivery.json` is only taken for lost once this long has passed since it was
 * received beyond the channels' own bound: until then its notifications may still be running, and
 * sending again would tell ops twice.
 */
export const PENDING_GRACE_MS = 60_000;

/** What redelivering one brief did. */
export interface RedeliveryResult {
  reference: string;
  /** The channels (and, when asked, the acknowledgment) sent again, with how each did this time. */
  attempted: Delivery;
  /** `--acknowledgment` asked for a failed acknowledgment, but `CONTACT_ACKNOWLEDGE` is off here. */
  acknowledgmentUnavailable: boolean;
  /** Channels that failed but are not configured here, so could not be retried. */
  unavailable: ChannelName[];
  /** Why nothing was sent, or why the new outcome could not be recorded. */
  error: string | null;
  /** Why the brief was left alone though it looked undelivered (notifications maybe still running). */
  waiting: string | null;
  /** The channels as they stand now (what `delivery.json` says after this run). */
  delivery: Delivery | null;
}

/** What `redeliver` was asked to send besides the failed channels. */
export interface RedeliveryOptions {
  /** `--acknowledgment`: also retry an acknowledgment recorded as failed (never one suppressed). */
  acknowledgment?: boolean;
}

/**
 * Whether the acknowledgment is to be sent again: only when asked, only when `delivery.json`
 * records it as failed. A success is never sent twice, a suppressed one (the 10-minute window,
 * verification that did not pass) never sent at all, and a brief with no record is left alone:
 * its acknowledgment may have gone before the process stopped.
 */
export function acknowledgmentFailed(delivery: Delivery | null): boolean {
  const outcome = delivery?.acknowledgment;
  return outcome !== undefined && !outcome.ok && outcome.suppressed !== true;
}

/**
 * Whether `redeliver --failed` looks at a brief: a channel failed, or nothing was ever recorded;
 * with `--acknowledgment`, also a failed acknowledgment.
 */
export function needsRedelivery(delivery: Delivery | null, options: RedeliveryOptions = {}): boolean {
  return (
    delivery === null ||
    CHANNEL_NAMES.some((name) => delivery[name]?.ok === false) ||
    (options.acknowledgment === true && acknowledgmentFailed(delivery))
  );
}

/** True when the brief still lacks a channel (or an asked-for acknowledgment) after the run: the command then exits non-zero. */
export function stillFailing(result: RedeliveryResult, options: RedeliveryOptions = {}): boolean {
  if (result.error !== null || result.unavailable.length > 0 || result.acknowledgmentUnavailable) return true;
  if (result.waiting !== null) return false;
  return (
    result.delivery === null ||
    CHANNEL_NAMES.some((name) => result.delivery?.[name]?.ok === false) ||
    (options.acknowledgment === true && acknowledgmentFailed(result.delivery))
  );
}

interface Plan {
  retry: ChannelName[];
  unavailable: ChannelName[];
  waiting: string | null;
}

/**
 * Which channels to send a brief to again. Those `delivery.json` records as failed, if they are
 * configured here. A channel configured now but absent from the record is not added: it was not
 * set up when the brief came in, and ops chose then who hears about it. A brief with no record at
 * all (the process stopped before its notifications ended) goes to every configured channel, once
 * it is old enough that its notifications cannot still be running.
 */
export function planRedelivery(
  brief: StoredBrief,
  configured: readonly ChannelName[],
  notifyTimeoutMs: number,
  now: Date,
): Plan {
  if (brief.delivery === null) {
    const age = now.getTime() - new Date(brief.record.receivedAt).getTime();
    if (age < notifyTimeoutMs + PENDING_GRACE_MS) {
      const seconds = Math.max(0, Math.round(age / 1000));
      return {
        retry: [],
        unavailable: [],
        waiting: `received ${seconds} s ago with no delivery.json yet: its notifications may still be running`,
      };
    }
    return { retry: [...configured], unavailable: [], waiting: null };
  }
  const delivery = brief.delivery;
  const failed = CHANNEL_NAMES.filter((name) => delivery[name]?.ok === false);
  return {
    retry: failed.filter((name) => configured.includes(name)),
    unavailable: failed.filter((name) => !configured.includes(name)),
    waiting: null,
  };
}

/**
 * What the channels are told about a stored brief: the file is read (and checked against
 * `brief.json`) only when the email, which carries it, is among `channels`; the webhook names it
 * by its checksum. Throws when the file is missing or damaged.
 */
export async function noticeFor(
  store: ObjectStore,
  brief: StoredBrief,
  channels: readonly ChannelName[],
): Promise<BriefNotice> {
  const { record } = brief;
  let attachment: NoticeAttachment | null = null;
  if (record.attachment && channels.includes("email")) {
    // Read and checked against brief.json before anything is sent: these bytes are what is mailed.
    const bytes = await readAttachment(store, brief);
    const stream = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      });
    attachment = { record: record.attachment, open: () => Promise.resolve(stream()) };
  }
  return { record, attachment, folder: brief.folder };
}

/**
 * Sends a stored brief again through the channels that need it, with the app's own channels and
 * `NOTIFY_TIMEOUT_MS`, and records the new outcomes in `delivery.json` (the others are kept).
 * Honeypot catches are refused by the caller and never reach this. Never throws for a channel
 * or an unreadable file: the result says what happened.
 */
export async function redeliverBrief(
  services: NotifyingInbox,
  brief: StoredBrief,
  now = new Date(),
  options: RedeliveryOptions = {},
): Promise<RedeliveryResult> {
  const { store, channels, config } = services;
  const { record } = brief;
  const configured = channels.map((channel) => channel.name);
  const plan = planRedelivery(brief, configured, config.notifyTimeoutMs, now);
  const acknowledge = options.acknowledgment === true && acknowledgmentFailed(brief.delivery);
  const acknowledger = acknowledge ? services.acknowledger : null;
  const result: RedeliveryResult = {
    reference: record.reference,
    attempted: {},
    acknowledgmentUnavailable: acknowledge && acknowledger === null,
    unavailable: plan.unavailable,
    error: null,
    waiting: plan.waiting,
    delivery: brief.delivery,
  };
  if (plan.retry.length === 0 && acknowledger === null) {
    if (brief.delivery === null && plan.waiting === null) {
      result.error =
        "no notification channel is configured here (WEBHOOK_URL, SMTP_URL with EMAIL_FROM and EMAIL_TO, or SLACK_WEBHOOK_URL)";
    }
    return result;
  }

  let notice: BriefNotice;
  try {
    notice = await noticeFor(store, brief, plan.retry);
  } catch (error) {
    result.error = `not sent: ${describeFailure(error)}`;
    return result;
  }
  const retried = channels.filter((channel) => plan.retry.includes(channel.name));
  result.attempted = await notifyAndAcknowledge(retried, notice, config.notifyTimeoutMs, acknowledger);

  // The acknowledgment's outcome is kept as it was unless it was sent again.
  const acknowledgment = result.attempted.acknowledgment ?? brief.delivery?.acknowledgment;
  const delivery: Delivery = acknowledgment ? { acknowledgment } : {};
  for (const name of CHANNEL_NAMES) {
    const outcome: DeliveryOutcome | undefined = result.attempted[name] ?? brief.delivery?.[name];
    if (outcome) delivery[name] = outcome;
  }
  try {
    await writeDelivery(store, brief.folder, delivery);
    result.delivery = delivery;
  } catch (error) {
    result.error = `sent, but delivery.json could not be written: ${describeFailure(error)}`;
  }
  return result;
}
