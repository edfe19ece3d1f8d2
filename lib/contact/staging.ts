import { formatBytes } from "../format";
import { ApiError, validationFailed } from "../http/errors";
import {
  type ObjectInfo,
  type ObjectStore,
  ObjectTooLargeError,
  type RemoveExpiredOptions,
  removeExpired,
} from "../store";
import { type AttachmentUpload } from "../briefs";
import { MAX_ATTACHMENT_BYTES } from "../schemas/brief";
import {
  parseStagedUploadPath,
  STAGING_PREFIX,
  UPLOAD_CONTENT_TYPES,
  uploadTokenRequestSchema,
} from "../schemas/staged-upload";
import { IncomingFile } from "./attachment";

/**
 * Attachments uploaded ahead of the form, straight from the browser to the Blob store, for files
 * past Vercel's 4.5 MB function body limit: the upload tokens `POST /api/contact/upload` issues,
 * claiming a staged upload into a brief, and removing the ones never claimed.
 */

/**
 * Files are uploaded ahead of the form only into a Vercel Blob inbox: that is where the platform's
 * body limit applies, and where the browser can send bytes to the store directly.
 */
export function acceptsStagedUploads(store: ObjectStore): boolean {
  return store.driver === "vercel-blob";
}

/** The token request's body: the event `@vercel/blob/client` sends, and the path it asks for. */
export const UPLOAD_TOKEN_BODY_LIMIT = 4 * 1024;

/** How long an upload token may be used: enough to send 10 MiB on a slow line, no more. */
export const UPLOAD_TOKEN_VALIDITY_MS = 10 * 60_000;

/**
 * How long reading a staged upload back may take. With the save's own bounds (`SAVE_DEADLINES`,
 * 6 s and 1.5 s) a store that fails midway is still answered within the contract's 10 s.
 */
export const CLAIM_DEADLINE_MS = 2_000;

/** Staged uploads older than this were never claimed by a brief: `gc` removes them. */
export const STAGED_UPLOAD_MAX_AGE_MS = 60 * 60_000;

/** For an upload another brief has claimed (two forms sent at once naming the same upload). */
export const STAGED_UPLOAD_TAKEN = "This uploaded file was already sent with another brief. Attach it again.";

/** For a path that names no upload of ours, missing or foreign alike: they are not told apart. */
export const STAGED_UPLOAD_NOT_FOUND = "The uploaded file could not be found. Attach it again.";

/**
 * The token request's JSON to the path it asks for. Not JSON, or not a token request, is 400
 * (`blob.upload-completed` included: this service registers no completion callback, so such an
 * event never comes from Vercel); a path that is not a fresh staged name is 422 `fields.pathname`.
 */
export function parseUploadTokenRequest(body: string): { pathname: string } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new ApiError("malformed_body", "The request body is not valid JSON.", { cause: error });
  }
  const parsed = uploadTokenRequestSchema.safeParse(value);
  if (!parsed.success) {
    throw new ApiError("malformed_body", "The request body is not an upload token request.");
  }
  const { pathname, multipart } = parsed.data.payload;
  if (!parseStagedUploadPath(pathname)) {
    throw validationFailed({
      pathname: "Upload to staging/<32 hex digits>/<file name>, the file name cleaned as the form does.",
    });
  }
  if (multipart) throw validationFailed({ pathname: "Upload the file in one request, not in parts." });
  return { pathname };
}

/**
 * A client token for exactly `pathname` under `staging/`: private, at most 10 MiB, one of the
 * declared types the form uses, never overwriting, valid for 10 minutes. No completion callback
 * is asked for: Vercel could not call back a server it cannot reach, and nothing needs it (the
 * brief claims the upload; `gc` removes what is never claimed).
 */
export async function issueUploadToken(
  request: Request,
  pathname: string,
  readWriteToken: string,
  now = Date.now(),
): Promise<string> {
  // Loaded here, not with the routes: only the Blob inbox's upload route ever asks for a token.
  const { handleUpload } = await import("@vercel/blob/client");
  const result = await handleUpload({
    token: readWriteToken,
    request,
    body: {
      type: "blob.generate-client-token",
      payload: { pathname, clientPayload: null, multipart: false },
    },
    onBeforeGenerateToken: async () => ({
      allowedContentTypes: [...UPLOAD_CONTENT_TYPES],
      maximumSizeInBytes: MAX_ATTACHMENT_BYTES,
      validUntil: now + UPLOAD_TOKEN_VALIDITY_MS,
      addRandomSuffix: false,
      allowOverwrite: false,
    }),
  });
  if (result.type !== "blob.generate-client-token") throw new Error(`Unexpected ${result.type}`);
  return result.clientToken;
}

/**
 * The staged upload `pathname` names, read back and held to every rule of a file in the form: at
 * most 10 MiB (refused from its recorded size before a byte is read), its type from its bytes.
 * The whole object is read, not a first range, for the sha256 the brief records; it goes through
 * the store's upload spool a chunk at a time, as a file in the form does (`IncomingFile`), and the
 * spool is removed once the file is typed: the brief's save copies the staged object within the
 * store, and the email channel streams the stored copy. A string says why it is refused; a store
 * that cannot be read in time is 503.
 */
export async function claimStagedUpload(
  store: ObjectStore,
  pathname: string,
  deadlineMs = CLAIM_DEADLINE_MS,
): Promise<AttachmentUpload | string> {
  const staged = parseStagedUploadPath(pathname);
  if (!staged) return STAGED_UPLOAD_NOT_FOUND;
  const signal = AbortSignal.timeout(deadlineMs);
  const file = new IncomingFile(store);
  try {
    const opened = await store.getStream(pathname, { maxBytes: MAX_ATTACHMENT_BYTES, signal });
    if (opened === null) return STAGED_UPLOAD_NOT_FOUND;
    await forEachChunk(opened.body, signal, (chunk) => file.write(chunk));
    const attachment = await file.describe(staged.name);
    return typeof attachment === "string" ? attachment : { record: attachment.record, staged: pathname };
  } catch (error) {
    if (error instanceof ObjectTooLargeError) {
      return `The file is larger than ${formatBytes(MAX_ATTACHMENT_BYTES)}.`;
    }
    // The store failed, stopped sending, or the spool could not be written: nothing was stored.
    console.error(`[contact] staged upload ${pathname} could not be read`, error);
    throw new ApiError("storage_unavailable", undefined, { cause: error });
  } finally {
    await file.discard();
  }
}

/**
 * Hands each chunk of `body` to `handle`, one at a time. When `signal` aborts, the read is cancelled
 * (which releases the connection) and its reason thrown, even while waiting for a chunk.
 */
async function forEachChunk(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  handle: (chunk: Uint8Array) => Promise<void>,
): Promise<void> {
  const reader = body.getReader();
  const cancel = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      // A cancelled read ends as if the stream were done: the deadline decides which it was.
      signal.throwIfAborted();
      if (done) return;
      await handle(value);
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

export interface StaleUploadOptions extends RemoveExpiredOptions {
  maxAgeMs?: number;
}

/**
 * Removes staged uploads older than `STAGED_UPLOAD_MAX_AGE_MS` at `now`: files uploaded for a form
 * that was never sent, or was refused. A claimed upload is deleted when its brief is stored, so
 * what is left here is litter; an hour is far past a token's 10 minutes plus the time to send the
 * form. Everything is listed before anything is deleted. Returns the uploads removed.
 */
export async function collectStaleUploads(
  store: ObjectStore,
  now: Date,
  options: StaleUploadOptions = {},
): Promise<ObjectInfo[]> {
  const { maxAgeMs = STAGED_UPLOAD_MAX_AGE_MS, ...rest } = options;
  return removeExpired(store, now, [{ prefix: STAGING_PREFIX, maxAgeMs }], rest);
}
