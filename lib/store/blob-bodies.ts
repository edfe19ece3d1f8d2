import { withinDeadline } from "./deadline";
import type { SpoolFile } from "./spool";
import { SendOnceStream } from "./streams";
import { type ObjectBody, ObjectTooLargeError, type StoreCallOptions, StoreUnavailableError } from "./types";

/* Bodies in and out of the Vercel Blob driver (blob.ts): bounded reads, spooled uploads, one-copy writes. */

/**
 * A blob's bytes, refusing one over `maxBytes`: at once when its declared length says so, else as
 * soon as the counted bytes pass the bound. The stream is cancelled either way.
 */
export async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  declaredSize: number,
  maxBytes: number,
  path: string,
): Promise<Uint8Array> {
  if (declaredSize > maxBytes) {
    await stream.cancel().catch(() => {});
    throw new ObjectTooLargeError(path, declaredSize, maxBytes);
  }
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) throw new ObjectTooLargeError(path, received, maxBytes);
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks);
}

/** Bytes read from a spool file per pull. */
const SPOOL_READ_BYTES = 64 * 1024;

/**
 * A spool file's bytes, one chunk read per pull: the next is read only once the HTTP client has
 * taken the last (Node 20's file streams and file-backed Blobs read ahead far more under load),
 * and none is kept once sent (`SendOnceStream`). A retry reads the file again from the start.
 */
export function spoolStream(spool: SpoolFile): ReadableStream<Uint8Array> {
  let position = 0;
  return new SendOnceStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = new Uint8Array(SPOOL_READ_BYTES);
        const count = await spool.read(chunk, position);
        if (count === 0) return controller.close();
        position += count;
        controller.enqueue(chunk.subarray(0, count));
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Local spool work (the upload's temporary file) within the caller's deadline, its failures as
 * `StoreUnavailableError` like the store's own.
 */
export async function spooled<T>(
  action: string,
  options: StoreCallOptions,
  work: () => Promise<T>,
): Promise<T> {
  try {
    options.signal?.throwIfAborted();
    return await withinDeadline(work(), options, action);
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(`Could not ${action}`, { cause: error });
  }
}

/**
 * The body as a Blob: the chunks are copied once, into memory the Blob owns. A stream would
 * avoid that copy, but the SDK re-sends the same body object when it retries, and a stream can
 * be read only once; the Blob also gives the request a Content-Length.
 */
export function toBlob(body: ObjectBody, contentType: string): Blob {
  const parts = typeof body === "string" || body instanceof Uint8Array ? [body] : body;
  return new Blob(parts as BlobPart[], { type: contentType });
}
