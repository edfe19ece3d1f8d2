import { createHash } from "node:crypto";
import { cleanFileName, inspectAttachment } from "../attachments";
import { formatBytes } from "../format";
import { type MultipartForm, type MultipartLimits, type UploadedFile } from "../http/body";
import { validationFailed } from "../http/errors";
import type { AttachmentUpload } from "../inbox";
import { BRIEF_FIELDS, briefSchema, MAX_ATTACHMENT_BYTES, type Brief } from "../schemas/brief";
import { fieldMessages } from "../schemas/text";

/** The largest contact request: the 10 MiB file plus room for the fields and multipart framing. */
export const CONTACT_BODY_LIMIT = 11 * 1024 * 1024;

export const CONTACT_FORM_LIMITS: MultipartLimits = {
  maxBodyBytes: CONTACT_BODY_LIMIT,
  maxFileBytes: MAX_ATTACHMENT_BYTES,
  // A 6000-character description is at most 24,000 bytes of UTF-8.
  maxFieldBytes: 64 * 1024,
  maxParts: 64,
  fileFields: ["brief"],
};

/** The honeypot: a field people never see, so never fill. */
export const HONEYPOT_FIELD = "website";

export interface Submission {
  brief: Brief;
  /** The file, type detected from its bytes; `null` when none was attached. */
  attachment: AttachmentUpload | null;
  /** The honeypot was filled: store apart, notify nobody. */
  spam: boolean;
}

const TEXT_FIELDS = [...BRIEF_FIELDS, HONEYPOT_FIELD] as const;

/** Validates a parsed contact form: every field rule at once, then the attachment from its bytes. */
export async function validateSubmission(form: MultipartForm): Promise<Submission> {
  const problems: Record<string, string> = {};
  const input: Record<string, string> = {};

  for (const field of TEXT_FIELDS) {
    const values = form.fields.get(field) ?? [];
    const first = values[0];
    if (form.files.has(field)) problems[field] = "Send this field as text, not as a file.";
    else if (values.length > 1) problems[field] = "This field was sent more than once.";
    else if (first?.truncated) problems[field] = "This field is far too long.";
    else if (first?.invalidEncoding) problems[field] = "This field is not valid UTF-8 text.";
    else if (first) input[field] = first.value;
  }

  const parsed = briefSchema.safeParse(input);
  if (!parsed.success) Object.assign(problems, { ...fieldMessages(parsed.error), ...problems });

  const file = await attachmentFrom(form);
  if (typeof file === "string") problems.brief = file;

  if (!parsed.success || Object.keys(problems).length > 0) {
    throw validationFailed(problems);
  }
  return {
    brief: parsed.data,
    attachment: typeof file === "string" ? null : file,
    spam: (input[HONEYPOT_FIELD] ?? "").trim() !== "",
  };
}

/** The attachment, or a message saying why it is refused. */
async function attachmentFrom(form: MultipartForm): Promise<AttachmentUpload | null | string> {
  const files = form.files.get("brief") ?? [];
  if (form.fields.has("briefUpload")) {
    return "Uploading ahead of the form is not available on this server; attach the file to the form.";
  }
  // A text part named brief with anything in it (even bytes that are not text) is not a file.
  if (form.fields.get("brief")?.some((field) => field.value !== "" || field.invalidEncoding)) {
    return "Attach the brief as a file.";
  }
  if (files.length > 1) return "Attach one file only.";
  const file = files[0];
  return file ? checkFile(file) : null;
}

async function checkFile(file: UploadedFile): Promise<AttachmentUpload | string> {
  if (file.truncated) return `The file is larger than ${formatBytes(MAX_ATTACHMENT_BYTES)}.`;
  const originalName = cleanFileName(file.filename);
  const inspection = await inspectAttachment(file.chunks, originalName);
  if (!inspection.ok) return inspection.message;
  const { type } = inspection;

  const hash = createHash("sha256");
  for (const chunk of file.chunks) hash.update(chunk);
  return {
    record: {
      filename: `attachment.${type.ext}`,
      originalName,
      contentType: type.contentType,
      size: file.size,
      sha256: hash.digest("hex"),
    },
    chunks: file.chunks,
  };
}
