import type { AttachmentRecord } from "../../briefs";
import { ApiError } from "../../http/errors";
import { recordAudit } from "../audit";
import type { Acting, InboxStore } from "../deps";
import { openAttachment } from "../reader";
import type { StoredBrief } from "../records";

/**
 * A brief's attached file as a stream, checked as it goes (see `openAttachment`), with the download
 * recorded in the audit log (`inline`: shown on the brief's page). 404 `not_found` for a brief
 * without one.
 */
export async function downloadAttachment(
  { store }: InboxStore,
  brief: StoredBrief,
  { actor, now = new Date(), inline }: Acting & { inline: boolean },
): Promise<{ attachment: AttachmentRecord; body: ReadableStream<Uint8Array> }> {
  const { attachment, reference } = brief.record;
  if (!attachment) throw new ApiError("not_found", "This brief has no attachment.");
  const body = await openAttachment(store, brief);
  await recordAudit(
    store,
    { actor, action: "download", target: inline ? { reference, shown: "inline" } : reference },
    now,
  );
  return { attachment, body };
}
