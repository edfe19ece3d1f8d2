import { finishInBackground } from "../background";
import type { ChannelOutcomes } from "../notify/types";
import type { ObjectStore, StoreCallOptions } from "../store";
import type { AcknowledgmentOutcome } from "./record";
import type { BriefFile } from "./save";

/**
 * `delivery.json`: one outcome per configured channel, and `acknowledgment` when
 * `CONTACT_ACKNOWLEDGE=true` (not a channel: `forwarded` never names it). A file of the brief's
 * folder, beside `brief.json`: the channels only report their outcomes.
 */
export type Delivery = ChannelOutcomes & {
  acknowledgment?: AcknowledgmentOutcome;
};

/** How long the response waits for `delivery.json` to be written before it goes without it. */
const RECORD_WAIT_MS = 500;

/** How long writing `delivery.json` may take in all, after the response if need be. */
const RECORD_WRITE_MS = 5_000;

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
