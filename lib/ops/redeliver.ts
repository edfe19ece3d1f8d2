import { type ChannelDelivery, type Delivery } from "../briefs";
import type { AttemptResult, Target } from "../deliveries";
import { CHANNEL_NAMES, type ChannelName, describeFailure } from "../notify";
import type { NotifyingInbox } from "./deps";
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
  /** The channels (and, when asked, the acknowledgment) sent again: each one's record after this attempt. */
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
  /**
   * Send this channel alone, whatever its record says: a failed one tried now, a delivered one
   * sent again (the inbox's "Send again", which asks first).
   */
  channel?: ChannelName;
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

/** The plan for `channel` alone: sent when configured here, else reported as unavailable. */
function oneChannel(channel: ChannelName, configured: readonly ChannelName[]): Plan {
  const here = configured.includes(channel);
  return { retry: here ? [channel] : [], unavailable: here ? [] : [channel], waiting: null };
}

/**
 * "Retry now": sends a stored brief again through the channels that need it (those recorded as
 * retrying or failed, or every configured one for a brief with no record), through part 4's
 * deliveries, so each attempt is claimed (never made twice at once), logged in `delivery.json` and
 * followed as the schedule says. Honeypot catches are refused by the caller and never reach this.
 * Never throws for a channel: the result says what happened.
 */
export async function redeliverBrief(
  services: NotifyingInbox,
  brief: StoredBrief,
  now = new Date(),
  options: RedeliveryOptions = {},
): Promise<RedeliveryResult> {
  const { channels, config, deliveries } = services;
  const { record } = brief;
  const configured = channels.map((channel) => channel.name);
  const plan =
    options.channel === undefined
      ? planRedelivery(brief, configured, config.notifyTimeoutMs, now)
      : oneChannel(options.channel, configured);
  const acknowledge = options.acknowledgment === true && acknowledgmentFailed(brief.delivery);
  const withAcknowledgment = acknowledge && services.acknowledger !== null;
  const result: RedeliveryResult = {
    reference: record.reference,
    attempted: {},
    acknowledgmentUnavailable: acknowledge && !withAcknowledgment,
    unavailable: plan.unavailable,
    error: null,
    waiting: plan.waiting,
    delivery: brief.delivery,
  };
  const targets: Target[] = [...plan.retry, ...(withAcknowledgment ? (["acknowledgment"] as const) : [])];
  if (targets.length === 0) {
    if (brief.delivery === null && plan.waiting === null) {
      result.error =
        "no notification channel is configured here (WEBHOOK_URL, SMTP_URL with EMAIL_FROM and EMAIL_TO, or SLACK_WEBHOOK_URL)";
    }
    return result;
  }
  let attempts: AttemptResult[];
  try {
    attempts = await deliveries.retryNow(brief, targets, now, { again: options.channel !== undefined });
  } catch (error) {
    result.error = `not sent: ${describeFailure(error)}`;
    return result;
  }
  const busy = attempts.filter((attempt) => !attempt.made).map((attempt) => attempt.target);
  for (const attempt of attempts) {
    if (attempt.made) (result.attempted as Record<Target, ChannelDelivery>)[attempt.target] = attempt.record;
  }
  if (busy.length > 0) {
    result.error = `an attempt at ${busy.join(" and ")} is under way elsewhere; look again in a minute`;
  }
  result.delivery = { ...(brief.delivery ?? {}), ...result.attempted };
  return result;
}
