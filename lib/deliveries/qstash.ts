import { Client, Receiver } from "@upstash/qstash";
import { z } from "zod";
import { CHANNEL_NAMES } from "../notify";
import type { RetryPublisher } from "./deliveries";
import type { DueRecord, Target } from "./types";

/** Upstash QStash as the config gives it. */
export interface QStashSettings {
  token: string;
  currentSigningKey: string;
  nextSigningKey: string;
  /** `QSTASH_URL`; `null`: QStash's own. */
  url: string | null;
}

/** Where QStash delivers each retry: `SITE_URL/api/deliveries/retry`. */
export function retryDestination(siteOrigin: string): string {
  return `${siteOrigin}/api/deliveries/retry`;
}

/** Publishing waits for QStash this long; past it, the due record is left for the scheduler or cron. */
const PUBLISH_RETRIES = 2;

/**
 * Publishes each retry to QStash with its delay (whole seconds, rounded up so it never arrives
 * early), to be delivered to `destination` as `{ reference, channel }`. The deduplication id names
 * the attempt, so a publish the client repeats after a lost answer is one message.
 */
export class QStashPublisher implements RetryPublisher {
  private readonly client: Client;

  constructor(
    settings: QStashSettings,
    private readonly destination: string,
  ) {
    this.client = new Client({
      token: settings.token,
      ...(settings.url ? { baseUrl: settings.url } : {}),
      retry: { retries: PUBLISH_RETRIES, backoff: (count) => 200 * 2 ** count },
    });
  }

  async publish(due: DueRecord): Promise<void> {
    const delay = Math.max(0, Math.ceil((Date.parse(due.dueAt) - Date.now()) / 1000));
    await this.client.publishJSON({
      url: this.destination,
      body: { reference: due.reference, channel: due.channel },
      delay,
      deduplicationId: `${due.reference}.${due.channel}.${Date.parse(due.dueAt)}`,
    });
  }
}

const messageSchema = z.object({
  reference: z.string().regex(/^[0-9A-Z-]{1,40}$/),
  channel: z.enum([...CHANNEL_NAMES, "acknowledgment"]),
});

/** What `readRetryMessage` found: the attempt a message names, or why it was refused. */
export type RetryMessage =
  { valid: true; reference: string; channel: Target } | { valid: false; why: "signature" | "body" };

/**
 * A message QStash delivered: accepted only with a valid `Upstash-Signature` for this very body and
 * destination (signed with the current or the next key), then read as `{ reference, channel }`.
 */
export class RetryMessages {
  private readonly receiver: Receiver;

  constructor(
    settings: QStashSettings,
    private readonly destination: string,
  ) {
    this.receiver = new Receiver({
      currentSigningKey: settings.currentSigningKey,
      nextSigningKey: settings.nextSigningKey,
    });
  }

  async read(signature: string | null, body: string): Promise<RetryMessage> {
    if (!signature) return { valid: false, why: "signature" };
    try {
      const verified = await this.receiver.verify({
        signature,
        body,
        url: this.destination,
        clockTolerance: 5,
      });
      if (!verified) return { valid: false, why: "signature" };
    } catch {
      return { valid: false, why: "signature" };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return { valid: false, why: "body" };
    }
    const message = messageSchema.safeParse(parsed);
    if (!message.success) return { valid: false, why: "body" };
    return { valid: true, reference: message.data.reference, channel: message.data.channel };
  }
}
