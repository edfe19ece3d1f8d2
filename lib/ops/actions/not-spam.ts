import { briefFolder } from "../../briefs";
import { ApiError } from "../../http/errors";
import { type Delivery } from "../../briefs";
import { storedAttachment } from "../../notify";
import { recordAudit } from "../audit";
import type { Acting, NotifyingInbox } from "../deps";
import { removeFolder } from "../erase";
import { indexMove } from "../index-update";
import type { StoredBrief } from "../records";
import { NEW_STATE } from "../state";

export interface NotSpamResult {
  /** The brief where it is now, under `briefs/`, `new`. */
  brief: StoredBrief;
  delivery: Delivery;
}

/**
 * "Not spam": moves a honeypot catch into `briefs/` (same day, same reference) as a `new` brief,
 * then tells the configured channels as for a brief just received, writes its `delivery.json`,
 * and records the move in the audit log. 404 `not_found` for a brief that is not in spam. The
 * attachment is copied first and `brief.json` last, the save's own commit point, so a failure
 * half-way leaves the catch where it was; the spam folder is removed only once the brief is in
 * place (`brief.json` first).
 */
export async function markNotSpam(
  inbox: NotifyingInbox,
  spam: StoredBrief,
  { actor, now = new Date() }: Acting,
): Promise<NotSpamResult> {
  const { store, deliveries } = inbox;
  const { record } = spam;
  if (spam.kind !== "spam") throw new ApiError("not_found", "This brief is not in spam.");
  const folder = briefFolder("briefs", record.reference, new Date(record.receivedAt));
  if (record.attachment) {
    const { filename, contentType } = record.attachment;
    await store.copy(`${spam.folder}/${filename}`, `${folder}/${filename}`, contentType);
  }
  await store.copy(`${spam.folder}/brief.json`, `${folder}/brief.json`, "application/json");
  await removeFolder(store, spam.folder);
  const brief: StoredBrief = { kind: "briefs", folder, record, delivery: null, state: NEW_STATE };

  const attachment = record.attachment && storedAttachment(store, folder, record.attachment);
  const { delivery } = await deliveries.deliverNew(
    { record, attachment, folder },
    { acknowledge: false, waitForRecord: true },
  );
  // Its day may be long before the list's watermark: the index is told, not left to find it.
  await indexMove(store, spam, { ...brief, delivery });
  await recordAudit(store, { actor, action: "not-spam", target: record.reference }, now);
  return { brief: { ...brief, delivery }, delivery };
}
