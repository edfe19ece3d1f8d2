import { createHash } from "node:crypto";
import type { Mailbox } from "../config";
import type { BriefRecord } from "../inbox";
import { type AcknowledgmentOutcome, describeFailure } from "../notify";
import type { Cooldown } from "../ratelimit";
import { withTimeout } from "../timeout";
import {
  BriefAcknowledgmentEmail,
  briefAcknowledgmentSubject,
  renderEmail,
  type VisitorMailer,
} from "../visitor-email";

/** `error` of an acknowledgment held back by the 10-minute window. */
export const ACKNOWLEDGMENT_WITHIN_WINDOW =
  "not sent: an acknowledgment went to this address within 10 minutes";

/** `error` of an acknowledgment not sent because human verification was on and did not pass. */
export const ACKNOWLEDGMENT_UNVERIFIED = "not sent: human verification did not pass";

/**
 * Emails a brief's sender that it arrived (`CONTACT_ACKNOWLEDGE=true`): at most one per address per
 * 10 minutes, counted in `cooldown` (the rate limits' store) under a hash of the lowercased
 * address, never the address. Each attempt is bounded by `timeoutMs` in all, window included.
 */
export class Acknowledger {
  constructor(
    private readonly mailer: VisitorMailer,
    private readonly cooldown: Cooldown,
    private readonly replyTo: Mailbox | null,
    private readonly timeoutMs: number,
  ) {}

  /** Never rejects: the outcome says what happened, for `delivery.json`. */
  async acknowledge(record: BriefRecord): Promise<AcknowledgmentOutcome> {
    // `unavailable`: Turnstile was on but could not be asked, so the visitor was let through
    // unchecked. That is not a pass: a bot could use the outage to aim mail at anyone.
    if (record.verification === "unavailable") {
      return { ok: false, at: now(), suppressed: true, error: ACKNOWLEDGMENT_UNVERIFIED };
    }
    try {
      return await withTimeout(this.timeoutMs, () => this.send(record));
    } catch (error) {
      const reason = withoutAddress(describeFailure(error), record.email);
      console.warn(`[contact] acknowledgment of brief ${record.reference} not sent: ${reason}`);
      return { ok: false, at: now(), error: reason };
    }
  }

  private async send(record: BriefRecord): Promise<AcknowledgmentOutcome> {
    const email = await renderEmail(BriefAcknowledgmentEmail({ record }));
    const claim = await this.cooldown.claim(recipientId(record.email));
    if (claim === null) {
      return { ok: false, at: now(), suppressed: true, error: ACKNOWLEDGMENT_WITHIN_WINDOW };
    }
    try {
      await this.mailer.send({
        to: record.email,
        subject: briefAcknowledgmentSubject(record.reference),
        ...email,
        ...(this.replyTo ? { replyTo: this.replyTo } : {}),
      });
    } catch (error) {
      // Not sent: the window is given back, so a redelivery (or the next brief) can send one.
      await claim.release();
      throw error;
    }
    return { ok: true, at: now() };
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
