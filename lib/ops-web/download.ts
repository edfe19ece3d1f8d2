import { cleanFileName } from "../attachments";
import { ATTACHMENT_CONTENT_SECURITY_POLICY } from "../http/security-headers";
import type { AttachmentRecord } from "../briefs";
import { attachmentFileName } from "../notify";

/** The only types the inbox ever serves; anything else a record claims goes out as bytes. */
const SERVED_TYPES = new Set([
  "application/pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "image/png",
  "image/jpeg",
  "text/plain",
  "text/markdown",
]);

/** RFC 5987's `filename*` value: UTF-8, percent-encoded, nothing a header could misread. */
function rfc5987(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * The headers of an attachment download: the stored type, a download under the visitor's name
 * for the file (cleaned again, with the extension of its real type), and a response no browser
 * will run or sniff: a sandbox with nothing allowed, never cached.
 */
export function attachmentHeaders(attachment: AttachmentRecord): Record<string, string> {
  const name = cleanFileName(attachmentFileName(attachment));
  return {
    "Content-Type": SERVED_TYPES.has(attachment.contentType)
      ? attachment.contentType
      : "application/octet-stream",
    "Content-Length": String(attachment.size),
    "Content-Disposition": `attachment; filename*=UTF-8''${rfc5987(name)}`,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": ATTACHMENT_CONTENT_SECURITY_POLICY,
    "Cache-Control": "private, no-store",
  };
}
