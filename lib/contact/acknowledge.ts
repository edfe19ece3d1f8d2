import { createHash } from "node:crypto";
import type { Mailbox } from "../config";
import type { AcknowledgmentOutcome, BriefRecord } from "../briefs";
import type { BriefAcknowledger } from "../deliveries/types";
import { classifyFailure, describeFailure } from "../notify";
import { type Cooldown, type CooldownClaim, CooldownUnavailableError, releasedOnFailure } from "../ratelimit";
import { raceTimeout } from "../timeout";
import { briefAcknowledgmentSubject, renderBriefAcknowledgment, type VisitorMailer } from "../visitor-email";

/** `error` of an acknowledgment held back by the 10-minute window. */
export const ACKNOWLEDGMENT_WITHIN_WINDOW =
  "not sent: an acknowledgment went to this address within 10 minutes";

/** `error` of an acknowledgment not sent because human verification did not pass. */
export const ACKNOWLEDGMENT_UNVERIFIED = "not sent: human verification did not pass";

/**
 * `error` of an acknowledgment not sent because Redis could not say whether the window was open.
 * A failure, not a suppression: it is retried on the delivery schedule while the brief is young.
 */
export const ACKNOWLEDGMENT_WINDOW_UNCHECKED =
  "not sent: the 10-minute window could not be checked (Redis unavailable)";

/**
 * Emails a brief's sender that it arrived (`CONTACT_ACKNOWLEDGE=true`): at most one per address per
 * 10 minutes, counted in `cooldown` (the rate limits' store) under a hash of the lowercased
 * address, never the address; when the window cannot be checked, none. Each attempt is bounded by
 * `timeoutMs` in all, window included.
 */
export class Acknowledger implements BriefAcknowledger {
  constructor(
    private readonly mailer: VisitorMailer,
    private readonly cooldown: Cooldown,
    private readonly replyTo: Mailbox | null,
    private readonly timeoutMs: number,
  ) {}

  /** Never rejects: the outcome says what happened, for `delivery.json`, and how long it took. */
  async acknowledge(record: BriefRecord): Promise<AcknowledgmentOutcome> {
    const started = performance.now();
    const outcome = await this.attempt(record);
    return { ...outcome, ms: Math.round(performance.now() - started) };
  }

  private async attempt(record: BriefRecord): Promise<AcknowledgmentOutcome> {
    // Only a pass: `unavailable` (siteverify could not be asked, the visitor let through unchecked)
    // would let a bot use an outage to aim mail at anyone; `off` is a brief stored before the
    // acknowledgment needed Turnstile, which redeliver may meet.
    if (record.verification !== "passed") {
      return { ok: false, at: now(), suppressed: true, error: ACKNOWLEDGMENT_UNVERIFIED };
    }
    try {
      return await raceTimeout(this.timeoutMs, () => this.send(record));
    } catch (error) {
      const reason = withoutAddress(describeFailure(error), record.email);
      console.warn(`[contact] acknowledgment of brief ${record.reference} not sent: ${reason}`);
      return { ok: false, at: now(), error: reason, failure: classifyFailure(error) };
    }
  }

  /** The window first: only an email that will be sent is rendered. */
  private async send(record: BriefRecord): Promise<AcknowledgmentOutcome> {
    const claim = await this.claim(record.email);
    if (claim === "unchecked") {
      return { ok: false, at: now(), error: ACKNOWLEDGMENT_WINDOW_UNCHECKED, failure: { retryable: true } };
    }
    if (claim === null) {
      return { ok: false, at: now(), suppressed: true, error: ACKNOWLEDGMENT_WITHIN_WINDOW };
    }
    // Not sent: the window is given back, so a redelivery (or the next brief) can send one.
    const status = await releasedOnFailure(claim, async () => {
      const email = await renderBriefAcknowledgment({ siteName: this.mailer.siteName, record });
      return this.mailer.send({
        to: record.email,
        subject: briefAcknowledgmentSubject(record.reference),
        ...email,
        ...(this.replyTo ? { replyTo: this.replyTo } : {}),
      });
    });
    return { ok: true, at: now(), ...(status === undefined ? {} : { status }) };
  }

  /** The address's window; `"unchecked"` while Redis cannot tell (the cooldown warns, throttled). */
  private async claim(address: string): Promise<CooldownClaim | null | "unchecked"> {
    try {
      return await this.cooldown.claim(recipientId(address));
    } catch (error) {
      if (error instanceof CooldownUnavailableError) return "unchecked";
      throw error;
    }
  }
}

/** What the window is counted under: a hash of the lowercased address. */
export function recipientId(address: string): string {
  return createHash("sha256").update(address.trim().toLowerCase()).digest("hex");
}

function now(): string {
  return new Date().toISOString();
}

/** An SMTP server's reply may quote the recipient; `delivery.json` and the logs never carry it. */
function withoutAddress(text: string, email: string): string {
  return text.replace(new RegExp(email.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi"), "<recipient>");
}
