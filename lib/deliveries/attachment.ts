import { createHash } from "node:crypto";
import type { AttachmentRecord } from "../briefs";
import { DeliveryError, type NoticeAttachment, storedAttachment } from "../notify";
import type { ObjectStore } from "../store";

/**
 * A stored brief's file for a later attempt, checked against `brief.json` (size and SHA-256) before
 * anything is sent: read once to check, streamed again to send, never whole in memory. A file that
 * has changed or gone since the brief was stored is not mailed: the attempt fails, for good (no
 * later attempt would find it any better), with the reason for the log.
 */
export async function checkedAttachment(
  store: ObjectStore,
  folder: string,
  reference: string,
  record: AttachmentRecord,
  signal?: AbortSignal,
): Promise<NoticeAttachment> {
  const path = `${folder}/${record.filename}`;
  const opened = await store.getStream(path, signal ? { signal } : {});
  if (opened === null) {
    throw new DeliveryError(`not sent: the attachment of brief ${reference} is missing (no ${path})`, {
      retryable: false,
    });
  }
  const hash = createHash("sha256");
  let size = 0;
  const reader = opened.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    hash.update(read.value);
    size += read.value.byteLength;
  }
  const sha256 = hash.digest("hex");
  if (sha256 !== record.sha256 || size !== record.size) {
    throw new DeliveryError(
      `not sent: the attachment of brief ${reference} does not match brief.json (${path} has ${size} bytes with SHA-256 ${sha256}, brief.json says ${record.size} bytes with SHA-256 ${record.sha256}); the stored file has been changed or damaged`,
      { retryable: false },
    );
  }
  return storedAttachment(store, folder, record);
}
