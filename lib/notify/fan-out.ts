import { finishInBackground } from "../background";
import { withTimeout } from "../timeout";
import type { ObjectStore, StoreCallOptions } from "../store";
import type { AttachmentRecord, BriefFile } from "../briefs";
import {
  CHANNEL_NAMES,
  type BriefNotice,
  type Channel,
  type ChannelName,
  type Delivery,
  type DeliveryOutcome,
  type NoticeAttachment,
} from "./types";

/** A stored brief's attachment for the channels: its bytes streamed from the store when sent. */
export function storedAttachment(
  store: ObjectStore,
  folder: string,
  record: AttachmentRecord,
): NoticeAttachment {
  const path = `${folder}/${record.filename}`;
  return {
    record,
    async open(signal) {
      const opened = await store.getStream(path, { signal });
      if (opened === null) throw new Error(`${path} is missing from the inbox`);
      return opened.body;
    },
  };
}

/** How long the response waits for `delivery.json` to be written before it goes without it. */
const RECORD_WAIT_MS = 500;

/** How long writing `delivery.json` may take in all, after the response if need be. */
const RECORD_WRITE_MS = 5_000;

/**
 * Tells every channel about a stored brief at once, each bounded by `timeoutMs`: a channel that
 * has not succeeded by then is aborted and counted as failed. Never rejects.
 */
export async function fanOut(
  channels: readonly Channel[],
  notice: BriefNotice,
  timeoutMs: number,
): Promise<Delivery> {
  const outcomes = await Promise.all(
    channels.map(async (channel) => [channel.name, await attempt(channel, notice, timeoutMs)] as const),
  );
  return Object.fromEntries(outcomes);
}

/** The channels that succeeded, in the contract's order. */
export function forwardedChannels(delivery: Delivery): ChannelName[] {
  return CHANNEL_NAMES.filter((name) => delivery[name]?.ok === true);
}

async function attempt(channel: Channel, notice: BriefNotice, timeoutMs: number): Promise<DeliveryOutcome> {
  try {
    await withTimeout(timeoutMs, (signal) => channel.deliver(notice, signal));
    return { ok: true, at: new Date().toISOString() };
  } catch (error) {
    const reason = describeFailure(error);
    console.warn(`[notify] ${channel.name} failed for brief ${notice.record.reference}: ${reason}`);
    return { ok: false, at: new Date().toISOString(), error: reason };
  }
}

/** One line for ops: the error's message and those of its causes (`fetch failed: connect ECONNREFUSED ...`). */
export function describeFailure(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && parts.length < 4) {
    const message = current instanceof Error ? current.message : String(current);
    if (message && !parts.includes(message)) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return (parts.join(": ") || "unknown error").replace(/\s+/g, " ").slice(0, 500);
}

/**
 * Writes `delivery.json` beside the brief. The brief is stored whatever happens here, so a failure
 * is logged, never thrown; and a slow store does not hold the response past a short wait: the
 * write goes on after the response (kept alive there by `after()`), bounded on its own.
 */
export async function recordDelivery(store: ObjectStore, folder: string, delivery: Delivery): Promise<void> {
  const write = writeDelivery(store, folder, delivery, {
    signal: AbortSignal.timeout(RECORD_WRITE_MS),
  }).catch((error: unknown) => {
    console.error(`[notify] could not record the delivery of ${folder}`, error);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const wait = new Promise<void>((resolve) => (timer = setTimeout(resolve, RECORD_WAIT_MS)));
  await Promise.race([write, wait]);
  clearTimeout(timer);
  finishInBackground(write, `recording the delivery of ${folder}`);
}

/** `delivery.json` as a file of the brief's folder. */
export function deliveryFile(delivery: Delivery): BriefFile {
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
  delivery: Delivery,
  options: StoreCallOptions = {},
): Promise<void> {
  const file = deliveryFile(delivery);
  await store.put(`${folder}/${file.name}`, file.body, file.contentType, options);
}
