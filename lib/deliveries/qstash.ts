import type { Client, Receiver } from "@upstash/qstash";
import { z } from "zod";
import { CHANNEL_NAMES } from "../notify";
import type { RetryPublisher } from "./deliveries";
import type { DueRecord, Target } from "./types";
import { loadOnce } from "../load-once";

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
  private readonly client: () => Promise<Client>;

  constructor(
    settings: QStashSettings,
    private readonly destination: string,
  ) {
    this.client = loadOnce(async () => {
      const { Client } = await import("@upstash/qstash");
      return new Client({
        // Never the SDK's local dev server, whatever QSTASH_DEV says: this is the configured QStash.
        devMode: false,
        token: settings.token,
        ...(settings.url ? { baseUrl: settings.url } : {}),
        retry: { retries: PUBLISH_RETRIES, backoff: (count) => 200 * 2 ** count },
      });
    });
  }

  async publish(due: DueRecord): Promise<void> {
    const delay = Math.max(0, Math.ceil((Date.parse(due.dueAt) - Date.now()) / 1000));
    const client = await this.client();
    await client.publishJSON({
      url: this.destination,
      body: { reference: due.reference, channel: due.channel },
      delay,
      deduplicationId: `${due.reference}.${due.channel}.${Date.parse(due.dueAt)}`,
    });
  }
}

const TARGETS = [...CHANNEL_NAMES, "acknowledgment"] as const;

/** The body of every retry message: the attempt it names. */
export const retryMessageSchema = z.object({
  reference: z.string().regex(/^[0-9A-Z-]{1,40}$/),
  channel: z.enum(TARGETS),
});

/** Each wrong field of a message, once: a message that is not an object is wrong in both. */
function fieldProblems(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  const sentence = {
    reference: "A brief's reference, such as K7QM-3XD9-PTWA-84HC.",
    channel: `One of ${TARGETS.join(", ")}.`,
  };
  for (const issue of error.issues) {
    const field = issue.path[0];
    if (field === "reference" || field === "channel") fields[field] = sentence[field];
    else Object.assign(fields, sentence);
  }
  return fields;
}

/**
 * What `RetryMessages.read` found: the attempt a message names, or why it was refused: no valid
 * signature, a body that is not JSON, or JSON that is not `{ reference, channel }` (`fields` says
 * which is wrong).
 */
export type RetryMessage =
  | { valid: true; reference: string; channel: Target }
  | { valid: false; why: "signature" | "json" }
  | { valid: false; why: "fields"; fields: Record<string, string> };

/**
 * A message QStash delivered: accepted only with a valid `Upstash-Signature` for this very body and
 * destination (signed with the current or the next key), then read as `{ reference, channel }`.
 */
export class RetryMessages {
  private readonly receiver: () => Promise<Receiver>;

  constructor(
    settings: QStashSettings,
    private readonly destination: string,
  ) {
    this.receiver = loadOnce(async () => {
      const { Receiver } = await import("@upstash/qstash");
      return new Receiver({
        // Never the SDK's published dev keys, whatever QSTASH_DEV says: anyone could sign with those.
        devMode: false,
        currentSigningKey: settings.currentSigningKey,
        nextSigningKey: settings.nextSigningKey,
      });
    });
  }

  async read(signature: string | null, body: string): Promise<RetryMessage> {
    if (!signature) return { valid: false, why: "signature" };
    const receiver = await this.receiver();
    try {
      const verified = await receiver.verify({
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
      return { valid: false, why: "json" };
    }
    const message = retryMessageSchema.safeParse(parsed);
    if (!message.success) return { valid: false, why: "fields", fields: fieldProblems(message.error) };
    return { valid: true, reference: message.data.reference, channel: message.data.channel };
  }
}
