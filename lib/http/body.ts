import busboy from "busboy";
import { formatBytes } from "../format";
import { ApiError } from "./errors";
import { declaredCharset, decodePartText, PartCharsets, parseContentType } from "./part-charsets";

/**
 * Request bodies read under a byte cap: the declared size is checked before anything is read,
 * and the bytes actually received are counted as they arrive, so a body that lies about its size
 * (or is chunked with no size at all) is cut off at the cap instead of being buffered whole.
 */

/** The declared Content-Length when it is a plain number, else `null`. */
function declaredLength(request: Request): number | null {
  const declared = request.headers.get("content-length")?.trim();
  return declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : null;
}

export function assertDeclaredSize(request: Request, maxBytes: number): void {
  const declared = declaredLength(request);
  if (declared !== null && declared > maxBytes) throw tooLarge(maxBytes);
}

/** The media type without parameters, lowercased; `null` when absent. */
export function mediaType(request: Request): string | null {
  const value = request.headers.get("content-type");
  const type = value?.split(";")[0]?.trim().toLowerCase();
  return type ? type : null;
}

export function assertMediaType(request: Request, expected: string): void {
  if (mediaType(request) !== expected) {
    throw new ApiError("unsupported_media_type", `Send the request as ${expected}.`);
  }
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `The request is larger than ${formatBytes(maxBytes)}.`);
}

/** Yields the body's chunks, failing with 413 as soon as more than `maxBytes` have arrived. */
async function* countedChunks(request: Request, maxBytes: number): AsyncGenerator<Uint8Array> {
  if (!request.body) return;
  const reader = request.body.getReader();
  let received = 0;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        throw clientWentAway(request, received, error);
      }
      const { done, value } = next;
      if (done) return;
      received += value.byteLength;
      if (received > maxBytes) throw tooLarge(maxBytes);
      yield value;
    }
  } finally {
    // Stop pulling from the client: whatever it still sends is not read.
    await reader.cancel().catch(() => {});
  }
}

/**
 * Reading the body fails when the connection breaks off before the body ends: the client went away
 * (closed the tab, lost its network). Nobody waits for an answer and nothing is stored; this is no
 * bug, so it is one info line (never the client's address) and a quiet 400, not the 500 path.
 */
function clientWentAway(request: Request, received: number, cause: unknown): ApiError {
  const path = new URL(request.url).pathname;
  console.info(`[api] ${path}: the client went away after sending ${formatBytes(received)} of its body`);
  const message = "The request body could not be read: the connection closed before it ended.";
  return new ApiError("malformed_body", message, { cause });
}

/** UTF-8 that refuses bytes it cannot read, and keeps a byte-order mark as the text's first character. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The whole body as UTF-8 text, under the cap; a body that is not UTF-8 is 400, never altered with U+FFFD. */
export async function readText(request: Request, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of countedChunks(request, maxBytes)) chunks.push(chunk);
  try {
    return STRICT_UTF8.decode(Buffer.concat(chunks));
  } catch {
    throw new ApiError("malformed_body", "The request body could not be read: it is not valid UTF-8.");
  }
}

/** Where a file part's bytes go as they arrive, instead of memory (see `readMultipart`). */
export interface FileSink {
  /** Takes one chunk; the part is paused until it resolves. A rejection ends the parse with 503. */
  write(chunk: Uint8Array): Promise<void>;
}

/** Chooses a sink for each kept file part; `null` keeps that part's bytes in memory (`chunks`). */
export type OpenFileSink = (field: string, filename: string) => FileSink | null;

export interface UploadedFile {
  filename: string;
  /** What the client claimed; informational only, the bytes decide the type. */
  declaredType: string;
  /**
   * The bytes as received, kept in their chunks (no concatenated copy), when no sink took them.
   * Empty when truncated or written to `sink`.
   */
  chunks: Uint8Array[];
  /** Where the bytes were written as they arrived; what was written past the cap is not. */
  sink: FileSink | null;
  size: number;
  /** More than `maxFileBytes` were sent; the rest was discarded. */
  truncated: boolean;
}

export interface MultipartForm {
  /** Text parts by name, every occurrence in order. */
  fields: Map<string, FieldValue[]>;
  /** File parts by name, for the names in `fileFields` and for file parts sent under a text field's name. */
  files: Map<string, UploadedFile[]>;
}

export interface FieldValue {
  value: string;
  /** Longer than `maxFieldBytes`; `value` holds only the start. */
  truncated: boolean;
  /** The bytes were not text in the part's charset (UTF-8 unless it named another). */
  invalidEncoding: boolean;
}

export interface MultipartLimits {
  maxBodyBytes: number;
  maxFileBytes: number;
  maxFieldBytes: number;
  maxParts: number;
  /** Names whose file parts are kept; file parts under other names are drained and noted as present. */
  fileFields: readonly string[];
}

/**
 * Parses a `multipart/form-data` body as it streams in. Malformed bodies (bad boundary, truncated
 * parts, broken part headers) are 400; a body over `maxBodyBytes` or with too many parts is 413.
 * With `openSink`, a kept file part's bytes are handed to its sink as they arrive, with
 * back-pressure, so a large file never sits whole in memory; a sink that fails is 503. Whoever
 * opened the sinks removes what they hold when the request fails (this throws at any point).
 */
export async function readMultipart(
  request: Request,
  limits: MultipartLimits,
  openSink: OpenFileSink | null = null,
): Promise<MultipartForm> {
  const contentType = request.headers.get("content-type") ?? "";
  const boundary = parseContentType(contentType)?.params.get("boundary");
  // Busboy takes `boundary=""`, whose delimiter (a line starting with "--") any text can contain.
  if (boundary === "") {
    throw new ApiError("malformed_body", "The form data could not be read: its boundary is empty.");
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      // Text parts reach the listener as latin1, a lossless view of their bytes (the charset stage
      // below takes every declared charset out of the parts' Content-Type and hands it over in
      // `info.encoding`); each is decoded once, by decodePartText.
      defCharset: "latin1",
      defParamCharset: "utf8",
      limits: {
        fieldSize: limits.maxFieldBytes,
        fileSize: limits.maxFileBytes + 1, // busboy flags a file that reaches the limit, so allow the exact size
        parts: limits.maxParts,
        headerPairs: 20,
      },
    });
  } catch (error) {
    throw new ApiError("malformed_body", "The form data could not be read: its boundary is missing.", {
      cause: error,
    });
  }

  // busboy accepted the content type, so it has a boundary, the one parsed above the same way.
  const charsets = new PartCharsets(boundary ?? "");

  const form: MultipartForm = { fields: new Map(), files: new Map() };
  let failure: ApiError | null = null;
  const fail = (error: ApiError) => {
    failure ??= error;
  };

  parser.on("field", (name, raw, info) => {
    const value = decodePartText(raw, declaredCharset(info.encoding));
    const values = form.fields.get(name) ?? [];
    values.push({ value: value ?? "", truncated: info.valueTruncated, invalidEncoding: value === null });
    form.fields.set(name, values);
  });

  // Writes to sinks still running; every one settles (it resumes its part) before this returns.
  const writing = new Set<Promise<void>>();

  parser.on("file", (name, stream, info) => {
    const keep = limits.fileFields.includes(name);
    const file: UploadedFile = {
      filename: info.filename ?? "",
      declaredType: info.mimeType,
      chunks: [],
      sink: keep && openSink ? openSink(name, info.filename ?? "") : null,
      size: 0,
      truncated: false,
    };
    stream.on("data", (chunk: Buffer) => {
      file.size += chunk.byteLength;
      if (!keep || file.truncated || failure) return;
      if (!file.sink) {
        file.chunks.push(chunk);
        return;
      }
      stream.pause();
      const write = file.sink.write(chunk).then(
        () => void stream.resume(),
        (error: unknown) => {
          fail(new ApiError("storage_unavailable", undefined, { cause: error }));
          stream.resume(); // drained from here on, so the parser can finish or be destroyed
        },
      );
      writing.add(write);
      void write.finally(() => writing.delete(write));
    });
    stream.on("limit", () => {
      file.truncated = true;
      file.chunks = []; // already too large: hold none of it
    });
    stream.on("error", () => {}); // surfaces as the parser's own error
    stream.on("end", () => {
      // A browser sends an empty, unnamed file part when no file was chosen: that is no file.
      if (file.filename === "" && file.size === 0) return;
      const files = form.files.get(name) ?? [];
      files.push(file);
      form.files.set(name, files);
    });
  });

  parser.on("partsLimit", () => fail(new ApiError("payload_too_large", "The form has too many fields.")));

  let parseError: unknown = null;
  const settled = new Promise<void>((resolve) => {
    parser.on("close", resolve);
    parser.on("error", (error) => {
      parseError ??= error;
      resolve();
    });
  });

  const feed = async (bytes: Buffer) => {
    if (bytes.length > 0 && !parser.write(bytes)) {
      await Promise.race([new Promise((resolve) => parser.once("drain", resolve)), settled]);
    }
    if (charsets.malformed) fail(malformed());
  };

  try {
    for await (const chunk of countedChunks(request, limits.maxBodyBytes)) {
      if (failure || parseError) break;
      await feed(charsets.write(chunk));
    }
    if (!failure && !parseError) await feed(charsets.end());
    if (!failure && !parseError) {
      parser.end();
      await settled;
    }
  } finally {
    parser.removeAllListeners("drain");
    parser.destroy(); // a no-op once parsing closed; otherwise stops it mid-body
    // Nothing may still be writing once the caller gets the form, or an error to clean up after.
    while (writing.size > 0) await Promise.all([...writing]);
  }
  if (failure) throw failure;
  if (parseError) throw malformed(parseError);
  return form;
}

function malformed(cause?: unknown): ApiError {
  return new ApiError("malformed_body", "The form data could not be read: it is malformed or incomplete.", {
    cause,
  });
}

/** A JSON object, else 400 `malformed_body` (`example` shows the shape expected). */
export function parseJsonObject(body: string, example: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new ApiError("malformed_body", "The request body is not valid JSON.", { cause: error });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError("malformed_body", `The request body must be a JSON object, like ${example}.`);
  }
  return value as Record<string, unknown>;
}
