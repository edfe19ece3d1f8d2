import { Webhook } from "standardwebhooks";
import { type EmailSettings, postWebhook, SmtpSender } from "../notify";
import { withTimeout } from "../timeout";
import type { Target } from "./types";

/** A channel that gave up, as ops are told of it. */
export interface GaveUp {
  reference: string;
  channel: Target;
  error: string;
  attempts: number;
}

/** Tells ops, once, that a channel gave up on a brief. Never rejects. */
export interface GiveUpAlerts {
  gaveUp(event: GaveUp): Promise<void>;
}

/**
 * Ops hear of a channel that gave up through another one: by email to `EMAIL_TO` when the webhook
 * (or Slack) gave up and email is configured; by a `brief.delivery_failed` webhook event when email
 * gave up and the webhook is configured. The acknowledgment is the visitor's, not ops': its giving
 * up is in the log and the inbox only. Nothing a visitor typed is in either message.
 */
export class ChannelAlerts implements GiveUpAlerts {
  private readonly sender: SmtpSender | null;
  private readonly signer: Webhook | null;

  constructor(
    private readonly email: EmailSettings | null,
    private readonly webhook: { url: string; secret: string | null } | null,
    /** `SITE_URL/inbox` when the inbox on the web is on: the email links to the brief. */
    private readonly inboxUrl: string | null,
    private readonly timeoutMs: number,
  ) {
    this.sender = email && new SmtpSender(email.smtpUrl, timeoutMs);
    this.signer = webhook?.secret ? new Webhook(webhook.secret) : null;
  }

  async gaveUp(event: GaveUp): Promise<void> {
    try {
      if (event.channel === "email") await this.byWebhook(event);
      else if (event.channel !== "acknowledgment") await this.byEmail(event);
    } catch (error) {
      console.error(
        `[delivery] could not tell ops that ${event.channel} gave up on ${event.reference}`,
        error,
      );
    }
  }

  private async byEmail({ reference, channel, error, attempts }: GaveUp): Promise<void> {
    const sender = this.sender;
    if (!this.email || !sender) return;
    const { from, to } = this.email;
    const where = this.inboxUrl
      ? `The brief: ${this.inboxUrl}/${reference}`
      : `See it with: npm run inbox -- show ${reference}`;
    const text = [
      `The ${channel} notification of brief ${reference} gave up after ${attempts} ${attempts === 1 ? "attempt" : "attempts"}.`,
      "",
      `Last error: ${error}`,
      "",
      where,
      `Once ${channel} works again, "Retry now" on the brief's page (or npm run inbox -- redeliver ${reference}) sends it.`,
    ].join("\n");
    await withTimeout(this.timeoutMs, (signal) =>
      sender.send({
        from: { name: from.name, address: from.address },
        to: to.map((address) => ({ name: "", address })),
        subject: `Delivery failed: ${channel} for brief ${reference}`,
        text,
        signal,
      }),
    );
  }

  private async byWebhook({ reference, channel, error, attempts }: GaveUp): Promise<void> {
    if (!this.webhook) return;
    const body = JSON.stringify({ type: "brief.delivery_failed", reference, channel, error, attempts });
    const { url } = this.webhook;
    await withTimeout(this.timeoutMs, (signal) =>
      postWebhook(url, this.signer, `msg_${reference}_${channel}_failed`, body, signal),
    );
  }
}
