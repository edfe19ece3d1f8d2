import { z } from "zod";
import { cleanFileName } from "../attachments/filename";

/**
 * Where a browser uploads a brief's file ahead of the form when the inbox is a Vercel Blob store
 * (past Vercel's 4.5 MB function body limit), and how such a path looks. Shared by the contact
 * form, which names the upload, and the server, which issues tokens only for names of this shape
 * and accepts only such names in `briefUpload`. Imports nothing server-only.
 *
 * `staging/<id>/<name>`: `id` is 128 random bits in lowercase hex, drawn by the browser; `name` is
 * the visitor's file name, cleaned. The id is what makes an upload the visitor's own: no one else
 * can name it, so whoever sends the path is the one who uploaded it.
 */

export const STAGING_PREFIX = "staging/";

const STAGED_PATH = /^staging\/([0-9a-f]{32})\/([^/]+)$/;

/** Longest path accepted; a cleaned name of 200 code points fits with room to spare. */
const MAX_STAGED_PATH_LENGTH = 512;

/**
 * The type the browser declares for an upload, from the name's extension. A claim only, as with
 * a multipart upload: the token allows these types, and the server decides from the bytes.
 */
export const DECLARED_UPLOAD_TYPES = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  txt: "text/plain",
  md: "text/markdown",
} as const;

export const UPLOAD_CONTENT_TYPES: readonly string[] = [...new Set(Object.values(DECLARED_UPLOAD_TYPES))];

/** The declared type for a file name, or `null` when its extension is not one the form offers. */
export function declaredUploadType(fileName: string): string | null {
  const extension = fileName.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? "";
  return Object.hasOwn(DECLARED_UPLOAD_TYPES, extension)
    ? DECLARED_UPLOAD_TYPES[extension as keyof typeof DECLARED_UPLOAD_TYPES]
    : null;
}

/**
 * A file name as it appears in a staged path: cleaned like any attachment name, and without `?`,
 * `#` and `%` (they would end the path, or be read as an escape, in the blob's URL).
 */
export function stagedFileName(name: string): string {
  return cleanFileName(name).replace(/[?#%]/g, "_");
}

/** 128 random bits as 32 lowercase hex digits, from the platform's cryptographic generator. */
export function newStagingId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function stagedUploadPath(id: string, fileName: string): string {
  return `${STAGING_PREFIX}${id}/${stagedFileName(fileName)}`;
}

/**
 * The id and name of a well-formed staged path; `null` for anything else: another prefix, extra
 * or empty segments, `..`, a name that cleaning would change, an id of the wrong form.
 */
export function parseStagedUploadPath(path: string): { id: string; name: string } | null {
  if (path.length > MAX_STAGED_PATH_LENGTH) return null;
  const match = STAGED_PATH.exec(path);
  const [, id, name] = match ?? [];
  if (id === undefined || name === undefined || stagedFileName(name) !== name) return null;
  return { id, name };
}

/**
 * The token request `@vercel/blob/client` sends to `POST /api/contact/upload`. Only its shape is
 * checked here (a body of another shape is 400); whether `pathname` is a fresh staged path is
 * `parseStagedUploadPath`'s to say (422 `fields.pathname`), so the pattern below only documents it.
 */
export const uploadTokenRequestSchema = z.object({
  type: z.literal("blob.generate-client-token"),
  payload: z.object({
    pathname: z.string().meta({
      pattern: STAGED_PATH.source.replaceAll("\\/", "/"),
      maxLength: MAX_STAGED_PATH_LENGTH,
      description:
        "`staging/<id>/<name>`: `id` is 32 lowercase hex digits drawn by the browser, `name` the file name cleaned as the form does (`?`, `#` and `%` become `_`).",
    }),
    clientPayload: z.string().nullable().optional(),
    multipart: z
      .boolean()
      .optional()
      .meta({ description: "Must not be `true`: the file is sent in one request." }),
  }),
});
