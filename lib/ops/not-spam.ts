import { briefFolder } from "../briefs";
import { type Delivery, fanOut, writeDelivery } from "../notify";
import type { InboxServices } from "../services";
import { removeFolder } from "./erase";
import { OpsError } from "./errors";
import type { StoredBrief } from "./records";
import { noticeFor } from "./redeliver";
import { NEW_STATE } from "./state";

export interface NotSpamResult {
  /** The brief where it is now, under `briefs/`, `new`. */
  brief: StoredBrief;
  delivery: Delivery;
}

/**
 * "Not spam": moves a honeypot catch into `briefs/` (same day, same reference) as a `new` brief,
 * then tells the configured channels as for a brief just received and writes its
 * `delivery.json`. The attachment is copied first and `brief.json` last, the save's own commit
 * point, so a failure half-way leaves the catch where it was; the spam folder is removed only
 * once the brief is in place (`brief.json` first).
 */
export async function moveToInbox(services: InboxServices, spam: StoredBrief): Promise<NotSpamResult> {
  const { store, channels, config } = services;
  const { record } = spam;
  if (spam.kind !== "spam") throw new OpsError(`brief ${record.reference} is not in spam`);
  const folder = briefFolder("briefs", record.reference, new Date(record.receivedAt));
  if (record.attachment) {
    const { filename, contentType } = record.attachment;
    await store.copy(`${spam.folder}/${filename}`, `${folder}/${filename}`, contentType);
  }
  await store.copy(`${spam.folder}/brief.json`, `${folder}/brief.json`, "application/json");
  await removeFolder(store, spam.folder);
  const brief: StoredBrief = { kind: "briefs", folder, record, delivery: null, state: NEW_STATE };

  const names = channels.map((channel) => channel.name);
  const delivery = await fanOut(channels, await noticeFor(store, brief, names), config.notifyTimeoutMs);
  await writeDelivery(store, folder, delivery);
  return { brief: { ...brief, delivery }, delivery };
}
