import { BlobError, BlobPreconditionFailedError, copy, del, get, list, put } from "@vercel/blob";
import {
  assertObjectPath,
  assertObjectPrefix,
  type GetOptions,
  type ObjectBody,
  type ObjectInfo,
  type ObjectStore,
  ObjectTooLargeError,
  type StoreCallOptions,
  StoreUnavailableError,
} from "./types";

export interface BlobStoreOptions {
  /**
   * Upper bound for any one call, also when the caller sets no deadline of its own. The SDK
   * retries failed requests up to 10 times with waits that double from 1 s; this bound is what
   * turns a store that is down into an error in seconds instead of minutes.
   */
  callTimeoutMs?: number;
}

const LIST_PAGE_SIZE = 1000;

/**
 * The inbox in a Vercel Blob store. Every object is private (`access: "private"`: readable only
 * with the store's token, never through a public URL) and stored at exactly its path
 * (`addRandomSuffix: false`: the paths are the layout).
 */
export class BlobStore implements ObjectStore {
  readonly driver = "vercel-blob";
  private readonly token: string;
  private readonly callTimeoutMs: number;

  constructor(token: string, options: BlobStoreOptions = {}) {
    this.token = token;
    this.callTimeoutMs = options.callTimeoutMs ?? 8_000;
  }

  async put(path: string, body: ObjectBody, contentType: string, options: StoreCallOptions = {}) {
    assertObjectPath(path);
    await this.call(`write ${path}`, options, (abortSignal) =>
      put(path, toBlob(body, contentType), this.writeOptions(contentType, true, abortSignal)),
    );
  }

  async create(path: string, body: ObjectBody, contentType: string, options: StoreCallOptions = {}) {
    assertObjectPath(path);
    try {
      await this.call(
        `create ${path}`,
        options,
        (abortSignal) =>
          put(path, toBlob(body, contentType), this.writeOptions(contentType, false, abortSignal)),
        isAlreadyExists,
      );
      return true;
    } catch (error) {
      if (isAlreadyExists(error)) return false;
      throw error;
    }
  }

  async get(path: string, options: GetOptions = {}): Promise<Uint8Array | null> {
    assertObjectPath(path);
    const { maxBytes } = options;
    return this.call(
      `read ${path}`,
      options,
      async (abortSignal) => {
        // Private blobs are read from the store's own host with the token; `useCache: false` reads
        // the latest write instead of a copy cached at the edge.
        const result = await get(path, {
          access: "private",
          token: this.token,
          useCache: false,
          abortSignal,
        });
        if (result === null) return null;
        if (result.stream === null) throw new Error(`Unexpected ${result.statusCode} reading ${path}`);
        if (maxBytes === undefined) return new Uint8Array(await new Response(result.stream).arrayBuffer());
        return readAtMost(result.stream, result.blob.size, maxBytes, path);
      },
      (error) => error instanceof ObjectTooLargeError,
    );
  }

  async copy(from: string, to: string, contentType: string, options: StoreCallOptions = {}) {
    assertObjectPath(from);
    assertObjectPath(to);
    await this.call(`copy ${from} to ${to}`, options, (abortSignal) =>
      copy(from, to, this.writeOptions(contentType, true, abortSignal)),
    );
  }

  async delete(path: string, options: StoreCallOptions = {}): Promise<void> {
    assertObjectPath(path);
    await this.call(`delete ${path}`, options, (abortSignal) =>
      del(path, { token: this.token, abortSignal }),
    );
  }

  async *list(prefix: string, options: StoreCallOptions = {}): AsyncIterable<ObjectInfo> {
    assertObjectPrefix(prefix);
    let cursor: string | undefined;
    do {
      const page = await this.call(`list ${prefix || "the inbox"}`, options, (abortSignal) =>
        list({
          ...(prefix === "" ? {} : { prefix }),
          ...(cursor === undefined ? {} : { cursor }),
          limit: LIST_PAGE_SIZE,
          token: this.token,
          abortSignal,
        }),
      );
      for (const blob of page.blobs) {
        yield { path: blob.pathname, size: blob.size, uploadedAt: blob.uploadedAt };
      }
      cursor = page.hasMore ? page.cursor : undefined;
    } while (cursor !== undefined);
  }

  private writeOptions(contentType: string, allowOverwrite: boolean, abortSignal: AbortSignal) {
    return {
      access: "private",
      token: this.token,
      contentType,
      addRandomSuffix: false,
      allowOverwrite,
      abortSignal,
    } as const;
  }

  /**
   * Runs one SDK call within the caller's deadline and this store's own bound, whichever ends
   * first. At the deadline the request is aborted (a plain abort, which the SDK does not retry)
   * and the call fails at once, even while the SDK sits in a wait between retries. Errors become
   * `StoreUnavailableError`, except those `passThrough` picks for the caller to interpret.
   */
  private async call<T>(
    action: string,
    options: StoreCallOptions,
    work: (abortSignal: AbortSignal) => Promise<T>,
    passThrough: (error: unknown) => boolean = () => false,
  ): Promise<T> {
    const controller = new AbortController();
    let giveUp: (reason: Error) => void = () => {};
    const gaveUp = new Promise<never>((_, reject) => (giveUp = reject));
    const outer = options.signal;
    const stop = () => {
      controller.abort();
      giveUp(
        new Error(
          outer?.aborted ? "the caller's deadline passed" : `no answer within ${this.callTimeoutMs} ms`,
        ),
      );
    };
    const timer = setTimeout(stop, this.callTimeoutMs);
    outer?.addEventListener("abort", stop, { once: true });
    if (outer?.aborted) stop();
    try {
      return await Promise.race([work(controller.signal), gaveUp]);
    } catch (error) {
      if (passThrough(error)) throw error;
      throw new StoreUnavailableError(`Vercel Blob: could not ${action}`, { cause: error });
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", stop);
    }
  }
}

/**
 * A blob's bytes, refusing one over `maxBytes`: at once when its declared length says so, else as
 * soon as the counted bytes pass the bound. The stream is cancelled either way.
 */
async function readAtMost(
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

/**
 * The body as a Blob: the chunks are copied once, into memory the Blob owns. A stream would
 * avoid that copy, but the SDK re-sends the same body object when it retries, and a stream can
 * be read only once; the Blob also gives the request a Content-Length.
 */
function toBlob(body: ObjectBody, contentType: string): Blob {
  const parts = typeof body === "string" || body instanceof Uint8Array ? [body] : body;
  return new Blob(parts as BlobPart[], { type: contentType });
}

/**
 * With `allowOverwrite: false` an existing object is refused as "This blob already exists"; when
 * two writers race, the loser's conditional write fails as a precondition instead.
 */
function isAlreadyExists(error: unknown): boolean {
  return (
    error instanceof BlobPreconditionFailedError ||
    (error instanceof BlobError && /already exists/i.test(error.message))
  );
}
