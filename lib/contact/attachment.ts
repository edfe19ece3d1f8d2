import { createHash } from "node:crypto";
import { cleanFileName, inspectAttachment } from "../attachments";
import type { AttachmentUpload } from "../inbox";

/**
 * A file's bytes as the attachment a brief stores: the type from the bytes, the visitor's name
 * kept cleaned as metadata, size and sha256. The same for a file in the form and one uploaded
 * ahead of it. A string says why the file is refused.
 */
export async function describeAttachment(
  chunks: readonly Uint8Array[],
  fileName: string,
): Promise<AttachmentUpload | string> {
  const originalName = cleanFileName(fileName);
  const inspection = await inspectAttachment(chunks, originalName);
  if (!inspection.ok) return inspection.message;
  const { type } = inspection;

  const hash = createHash("sha256");
  let size = 0;
  for (const chunk of chunks) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return {
    record: {
      filename: `attachment.${type.ext}`,
      originalName,
      contentType: type.contentType,
      size,
      sha256: hash.digest("hex"),
    },
    chunks,
  };
}
