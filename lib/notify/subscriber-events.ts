import { Webhook } from "standardwebhooks";
import { postWebhook } from "./webhook";
import { withTimeout } from "../timeout";

export type SubscriberEventType = "newsletter.confirmed" | "newsletter.unsubscribed";

/**
 * What the webhook receives when an address joins or leaves the confirmed subscribers, so ops can
 * keep a mailing service in step.
 */
export interface SubscriberEvent {
  type: SubscriberEventType;
  email: string;
  topics: readonly string[];
  /** ISO 8601 UTC: when the change happened. */
  at: string;
}

/**
 * Posts subscriber events to `WEBHOOK_URL`, signed like briefs (Standard Webhooks), each bounded
 * by `NOTIFY_TIMEOUT_MS`. Resolves on a 2xx answer, rejects with the reason otherwise.
 */
export class SubscriberEvents {
  private readonly signer: Webhook | null;

  constructor(
    private readonly url: string,
    secret: string | null,
    private readonly timeoutMs: number,
  ) {
    this.signer = secret === null ? null : new Webhook(secret);
  }

  /** `id` names this change (the same id each time it would be sent again), for the receiver to drop duplicates. */
  async send(event: SubscriberEvent, id: string): Promise<void> {
    await withTimeout(this.timeoutMs, (signal) =>
      postWebhook(this.url, this.signer, id, JSON.stringify(event), signal),
    );
  }
}
