import { z } from "zod";
import { finishInBackground } from "../background";
import { CHANNEL_NAMES, type ChannelName } from "../notify/types";
import { type ObjectStore, type StoreCallOptions, updateObject } from "../store";
import { withAbortAfter } from "../timeout";
import type { BriefFile } from "./save";

/**
 * `delivery.json`, the brief's delivery log: per configured channel its state, its attempts and the
 * last 20 of them, and `acknowledgment` when `CONTACT_ACKNOWLEDGE=true` (not a channel: `forwarded`
 * never names it). A file of the brief's folder, beside `brief.json`; lib/deliveries keeps it.
 */

export const DELIVERY_STATES = ["delivered", "retrying", "failed"] as const;

/** `delivered`; `retrying` (another attempt is due at `nextAttemptAt`); `failed` (given up). */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The attempts a log keeps, newest last. */
export const LOG_LENGTH = 20;

/** One attempt, as the log keeps it. */
export interface AttemptEntry {
  /** ISO 8601 UTC: when the attempt ended. */
  at: string;
  ok: boolean;
  /** How long it took. */
  ms: number;
  /** The HTTP status or SMTP reply code, when the other end answered. */
  status?: number;
  /** Why it failed, in one line. */
  error?: string;
}

/** One channel's record in `delivery.json`. */
export interface ChannelDelivery {
  state: DeliveryState;
  /** `state === "delivered"`, for readers of part 1's records. */
  ok: boolean;
  /** ISO 8601 UTC: when the last attempt ended. */
  at: string;
  attempts: number;
  /** While `retrying`: when the next attempt is due. */
  nextAttemptAt?: string;
  /** The last failure's reason; absent once delivered. */
  error?: string;
  log: AttemptEntry[];
}

/**
 * The acknowledgment to the submitter: a channel's record, and `suppressed` when it was held back
 * on purpose (another went to the address within 10 minutes, or verification did not pass): then
 * it is `failed`, and never sent again.
 */
export interface AcknowledgmentDelivery extends ChannelDelivery {
  suppressed?: true;
}

/** What `delivery.json` holds; lib/deliveries' `Target` names its entries. */
export type Delivery = Partial<Record<ChannelName, ChannelDelivery>> & {
  acknowledgment?: AcknowledgmentDelivery;
};

const entrySchema = z.object({
  at: z.string(),
  ok: z.boolean(),
  ms: z.number(),
  status: z.number().int().optional(),
  error: z.string().optional(),
});

/**
 * A channel's record as read: part 1's records (`{ ok, at, error? }`, one attempt, no log) read as
 * `delivered` or `failed` from their `ok`, with that attempt as their log.
 */
const channelSchema = z
  .object({
    state: z.enum(DELIVERY_STATES).optional(),
    ok: z.boolean(),
    at: z.string(),
    attempts: z.number().int().nonnegative().optional(),
    nextAttemptAt: z.string().optional(),
    error: z.string().optional(),
    log: z.array(entrySchema).optional(),
    suppressed: z.literal(true).optional(),
  })
  .transform((value) => {
    const record: AcknowledgmentDelivery = {
      state: value.state ?? (value.ok ? "delivered" : "failed"),
      ok: value.ok,
      at: value.at,
      attempts: value.attempts ?? 1,
      log: value.log ?? [
        { at: value.at, ok: value.ok, ms: 0, ...(value.error === undefined ? {} : { error: value.error }) },
      ],
    };
    if (value.nextAttemptAt !== undefined && record.state === "retrying") {
      record.nextAttemptAt = value.nextAttemptAt;
    }
    if (value.error !== undefined) record.error = value.error;
    if (value.suppressed) record.suppressed = true;
    return record;
  });

/**
 * What `delivery.json` may hold as written: today's records, or part 1's (`{ ok, at, error? }` per
 * channel), which still read (the ops tool's tests write both).
 */
export type DeliveryInput = Partial<Record<ChannelName | "acknowledgment", z.input<typeof channelSchema>>>;

/** Thrown by `parseDeliveryRecord` for a file that is not a delivery record. */
export class DeliveryRecordError extends Error {
  override name = "DeliveryRecordError";
}

/** `delivery.json`: the known channels' records and the acknowledgment's; anything else is left out. */
export function parseDeliveryRecord(value: unknown): Delivery {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DeliveryRecordError("not a delivery record");
  }
  const delivery: Delivery = {};
  const entries = value as Record<string, unknown>;
  for (const name of CHANNEL_NAMES) {
    if (entries[name] === undefined) continue;
    const record: ChannelDelivery & { suppressed?: true } = read(entries[name]);
    delete record.suppressed; // only the acknowledgment is ever held back
    delivery[name] = record;
  }
  if (entries.acknowledgment !== undefined) delivery.acknowledgment = read(entries.acknowledgment);
  return delivery;
}

function read(value: unknown): AcknowledgmentDelivery {
  const result = channelSchema.safeParse(value);
  if (!result.success)
    throw new DeliveryRecordError(`not a delivery record: ${result.error.issues[0]?.message}`);
  return result.data;
}

/** How long the response waits for `delivery.json` to be written before it goes without it. */
const RECORD_WAIT_MS = 500;

/** How long writing `delivery.json` may take in all, after the response if need be. */
const RECORD_WRITE_MS = 5_000;

/**
 * Runs `write` (the brief's first delivery record), waiting for it a short while only: the brief is
 * stored whatever happens here, so a failure is logged, never thrown; and a slow store does not hold
 * the response: the write goes on after it (kept alive there by `after()`), bounded on its own.
 * `then` runs once it is written, after the response (a retry waited for, an alert): never waited for.
 * A write done in time with nothing to follow asks nothing of `after()` (whose snapshot of the
 * request's context is a cost of its own on every request).
 */
export async function recordInBackground(
  folder: string,
  write: (options: StoreCallOptions) => Promise<void>,
  then?: () => Promise<unknown>,
): Promise<void> {
  // Set once the write has settled: true when written, false when it failed (and was logged).
  let outcome: boolean | undefined;
  const written = withAbortAfter(RECORD_WRITE_MS, (signal) => write({ signal })).then(
    () => (outcome = true),
    (error: unknown) => {
      console.error(`[notify] could not record the delivery of ${folder}`, error);
      return (outcome = false);
    },
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const wait = new Promise<void>((resolve) => (timer = setTimeout(resolve, RECORD_WAIT_MS)));
  await Promise.race([written, wait]);
  clearTimeout(timer);
  if (outcome === false || (outcome === true && !then)) return;
  finishInBackground(
    written.then((ok) => (ok && then ? then() : undefined)),
    `recording the delivery of ${folder}`,
  );
}

/** `delivery.json` as a file of the brief's folder. */
export function deliveryFile(delivery: DeliveryInput): BriefFile {
  return {
    name: "delivery.json",
    body: `${JSON.stringify(delivery, null, 2)}\n`,
    contentType: "application/json",
  };
}

/** Writes `delivery.json` beside the brief, replacing any earlier record; throws when the store fails. */
export async function writeDelivery(
  store: ObjectStore,
  folder: string,
  delivery: DeliveryInput,
  options: StoreCallOptions = {},
): Promise<void> {
  const file = deliveryFile(delivery);
  await store.put(`${folder}/${file.name}`, file.body, file.contentType, options);
}

/**
 * Changes `delivery.json` with a conditional write, so two attempts finishing at once (two
 * channels of one brief, on two instances) lose neither record. `change` gets the record as it is
 * (`{}` when there is none or it is unreadable) and answers the new one.
 */
export async function updateDelivery(
  store: ObjectStore,
  folder: string,
  change: (current: Delivery) => Delivery,
  options: StoreCallOptions = {},
): Promise<Delivery> {
  return updateObject(
    store,
    `${folder}/delivery.json`,
    "application/json",
    (bytes) => {
      const next = change(bytes === null ? {} : readDeliveryBytes(bytes));
      return { write: deliveryFile(next).body as string, result: next };
    },
    options,
  );
}

/**
 * A brief's `delivery.json` as its next attempt starts from: `{}` when there is none or it is
 * unreadable (the attempt's own write then replaces it with what is known).
 */
export async function readDelivery(
  store: ObjectStore,
  folder: string,
  options: StoreCallOptions = {},
): Promise<Delivery> {
  const bytes = await store.get(`${folder}/delivery.json`, options);
  return bytes === null ? {} : readDeliveryBytes(bytes);
}

/** The record in `bytes`; an unreadable one as `{}` (this write replaces it with what is known). */
function readDeliveryBytes(bytes: Uint8Array): Delivery {
  try {
    return parseDeliveryRecord(JSON.parse(Buffer.from(bytes).toString("utf8")));
  } catch {
    return {};
  }
}
