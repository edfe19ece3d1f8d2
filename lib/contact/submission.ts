import { formatBytes } from "../format";
import { type MultipartForm, type MultipartLimits, type UploadedFile } from "../http/body";
import { validationFailed } from "../http/errors";
import type { ObjectStore } from "../store";
import type { AttachmentUpload, SpamVerdict } from "../briefs";
import { ATTRIBUTION_FIELDS, type Attribution, attributionFrom } from "../schemas/attribution";
import { BRIEF_FIELDS, briefSchema, MAX_ATTACHMENT_BYTES, type Brief } from "../schemas/brief";
import { fieldMessages } from "../schemas/text";
import { describeAttachment, IncomingFile } from "./attachment";
import { claimStagedUpload, STAGED_UPLOAD_NOT_FOUND } from "./staging";

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

/** The path of a file uploaded ahead of the form (Blob inbox only), sent instead of a `brief` file. */
export const STAGED_UPLOAD_FIELD = "briefUpload";

export interface Submission {
  brief: Brief;
  /** The file, type detected from its bytes; `null` when none was attached. */
  attachment: AttachmentUpload | null;
  /** Where the lead came from; `null` when the form sent none of it (or nothing valid). */
  attribution: Attribution | null;
  /** The honeypot was filled (`{ reason: "honeypot" }`): store apart, notify nobody. */
  spam: SpamVerdict | null;
}

const TEXT_FIELDS = [...BRIEF_FIELDS, HONEYPOT_FIELD] as const;

/**
 * Validates a parsed contact form: every field rule at once, then the attachment from its bytes.
 * `staging` is the store files are uploaded to ahead of the form, or `null` where that is not
 * available (the filesystem inbox): `briefUpload` is then refused.
 */
export async function validateSubmission(
  form: MultipartForm,
  staging: ObjectStore | null = null,
): Promise<Submission> {
  const problems: Record<string, string> = {};
  const input: Record<string, string> = {};

  for (const field of TEXT_FIELDS) {
    const values = form.fields.get(field) ?? [];
    const first = values[0];
    if (form.files.has(field)) problems[field] = "Send this field as text, not as a file.";
    else if (values.length > 1) problems[field] = "This field was sent more than once.";
    else if (first?.truncated) problems[field] = "This field is far too long.";
    else if (first?.invalidEncoding)
      problems[field] = "This field's text could not be read; send it as UTF-8.";
    else if (first) input[field] = first.value;
  }

  const parsed = briefSchema.safeParse(input);
  if (!parsed.success) Object.assign(problems, { ...fieldMessages(parsed.error), ...problems });

  const file = await attachmentFrom(form, staging);
  if (typeof file === "string") problems.brief = file;

  if (!parsed.success || Object.keys(problems).length > 0) {
    throw validationFailed(problems);
  }
  return {
    brief: parsed.data,
    attachment: typeof file === "string" ? null : file,
    attribution: attributionFrom(attributionInput(form)),
    spam: (input[HONEYPOT_FIELD] ?? "").trim() !== "" ? { reason: "honeypot" } : null,
  };
}

/**
 * The attribution fields as sent, where each could be read as one text value. Never a problem for
 * the brief: a field sent twice, as a file, cut short or in another encoding is simply left out.
 */
function attributionInput(form: MultipartForm): Record<string, string> {
  const input: Record<string, string> = {};
  for (const field of Object.keys(ATTRIBUTION_FIELDS)) {
    const values = form.fields.get(field) ?? [];
    const only = values[0];
    if (values.length === 1 && only && !only.truncated && !only.invalidEncoding && !form.files.has(field)) {
      input[field] = only.value;
    }
  }
  return input;
}

/** The attachment, or a message saying why it is refused. */
async function attachmentFrom(
  form: MultipartForm,
  staging: ObjectStore | null,
): Promise<AttachmentUpload | null | string> {
  const files = form.files.get("brief") ?? [];
  // A text part named brief with anything in it (even bytes that are not text) is not a file.
  if (form.fields.get("brief")?.some((field) => field.value !== "" || field.invalidEncoding)) {
    return "Attach the brief as a file.";
  }
  if (files.length > 1) return "Attach one file only.";
  const file = files[0];

  const staged = stagedPath(form);
  if (staged === null) return file ? checkFile(file) : null;
  if (!staging) {
    return "Uploading ahead of the form is not available on this server; attach the file to the form.";
  }
  if (typeof staged !== "string") return staged.problem;
  if (file) return "Attach the file to the form or upload it ahead of the form, not both.";
  return claimStagedUpload(staging, staged);
}

/** `briefUpload`'s value; `null` when it is absent or empty (an empty optional field is absent). */
function stagedPath(form: MultipartForm): string | null | { problem: string } {
  if (form.files.has(STAGED_UPLOAD_FIELD))
    return { problem: "Send the upload's path as text, not as a file." };
  const values = (form.fields.get(STAGED_UPLOAD_FIELD) ?? []).filter(
    (field) => field.value !== "" || field.invalidEncoding,
  );
  if (values.length === 0) return null;
  if (values.length > 1) return { problem: "Send one uploaded file only." };
  const [only] = values;
  // A path that is too long or not UTF-8 names no upload of ours: the claim refuses it as foreign.
  return only && !only.truncated && !only.invalidEncoding ? only.value : { problem: STAGED_UPLOAD_NOT_FOUND };
}

async function checkFile(file: UploadedFile): Promise<AttachmentUpload | string> {
  if (file.truncated) return `The file is larger than ${formatBytes(MAX_ATTACHMENT_BYTES)}.`;
  if (file.sink instanceof IncomingFile) return file.sink.describe(file.filename);
  return describeAttachment(file.chunks, file.filename);
}
