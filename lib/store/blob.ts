import { tmpdir } from "node:os";
import { readAtMost, spooled, spoolStream, toBlob } from "./blob-bodies";
import { blobCall, type BlobCallLimits, type CallKind } from "./blob-call";
import { loadedVercelBlob, type VercelBlob } from "./blob-sdk";
import { removeAbandonedSpools, SpoolFile } from "./spool";
import { limitStream } from "./streams";
import {
  assertObjectPath,
  assertObjectPrefix,
  type GetOptions,
  type ObjectBody,
  type ObjectEntry,
  type ObjectInfo,
  type ObjectStore,
  type ObjectUpload,
  type ObjectStream,
  ObjectTooLargeError,
  type StoreCallOptions,
  type VersionedObject,
} from "./types";

export interface BlobStoreOptions {
  /**
   * Upper bound for any one call, also when the caller sets no deadline of its own: what turns a
   * store that is down into an error in seconds instead of minutes.
   */
  callTimeoutMs?: number;
  /** How long a write already sent is left to run after its caller stopped waiting. */
  lateWriteLimitMs?: number;
  /**
   * How long after giving up on a write (at `lateWriteLimitMs`) the store may still accept it: the
   * request was sent, and nothing tells this side when the store stops working on it. Until then
   * the write counts as unsettled, so whoever undoes a failed save removes what it wrote only
   * after that, when anything that was going to land has landed.
   */
  lateWriteGraceMs?: number;
}

const LIST_PAGE_SIZE = 1000;

/** Upload spool files in this machine's temporary folder: `<prefix><random>`. */
const SPOOL_PREFIX = "intake-upload-";

/**
 * The inbox in a Vercel Blob store. Every object is private (`access: "private"`: readable only
 * with the store's token, never through a public URL) and stored at exactly its path
 * (`addRandomSuffix: false`: the paths are the layout).
 */
export class BlobStore implements ObjectStore {
  readonly driver = "vercel-blob";
  private readonly token: string;
  private readonly limits: BlobCallLimits;

  constructor(token: string, options: BlobStoreOptions = {}) {
    this.token = token;
    this.limits = {
      callTimeoutMs: options.callTimeoutMs ?? 8_000,
      lateWriteLimitMs: options.lateWriteLimitMs ?? 30_000,
      lateWriteGraceMs: options.lateWriteGraceMs ?? 60_000,
    };
    // The SDK's own retries (10 by default, with waits doubling from 1 s) would go on after the
    // caller's deadline, and a retry that succeeds then lands a write its caller was told had
    // failed. `call` retries instead, never past the deadline. The SDK has no per-call option.
    process.env.VERCEL_BLOB_RETRIES = "0";
  }

  async put(path: string, body: ObjectBody, contentType: string, options: StoreCallOptions = {}) {
    assertObjectPath(path);
    await this.call(
      `write ${path}`,
      options,
      ({ put }, abortSignal) =>
        put(path, toBlob(body, contentType), this.writeOptions(contentType, true, abortSignal)),
      { write: true },
    );
  }

  /** One put after the other, in order: the store makes each durable before it answers. */
  async putAll(entries: readonly ObjectEntry[], options: StoreCallOptions = {}): Promise<void> {
    for (const entry of entries) await this.put(entry.path, entry.body, entry.contentType, options);
  }

  /**
   * The upload's bytes are spooled to a local temporary file as they arrive (`/tmp` on Vercel), so
   * a refused file never reaches the store; `commit` streams that file to the store in one put
   * (read again from disk on each attempt) and removes it.
   */
  async beginUpload(options: StoreCallOptions = {}): Promise<ObjectUpload> {
    const spool = await spooled("start an upload", options, async () => {
      const made = await SpoolFile.create(tmpdir(), SPOOL_PREFIX);
      if (options.signal?.aborted) {
        await made.remove(); // made after the caller stopped waiting: nobody will discard it
        throw new Error("The deadline passed.");
      }
      return made;
    });
    return {
      get size() {
        return spool.size;
      },
      write: (chunk, callOptions = {}) => spooled("write an upload", callOptions, () => spool.write(chunk)),
      read: (target, position) => spool.read(target, position),
      commit: async (path, contentType, options = {}) => {
        assertObjectPath(path);
        await this.call(
          `write ${path}`,
          options,
          ({ put }, abortSignal) =>
            put(path, spoolStream(spool), this.writeOptions(contentType, true, abortSignal)),
          { write: true },
        );
        await spool.remove();
      },
      discard: () => spool.remove(),
    };
  }

  /** Spool files are local: this machine's temporary folder is the only one looked at. */
  async removeAbandonedUploads(before: Date, options: StoreCallOptions & { dryRun?: boolean } = {}) {
    return spooled("remove abandoned uploads", options, () =>
      removeAbandonedSpools(tmpdir(), SPOOL_PREFIX, before, { dryRun: options.dryRun }),
    );
  }

  async create(path: string, body: ObjectBody, contentType: string, options: StoreCallOptions = {}) {
    assertObjectPath(path);
    try {
      await this.call(
        `create ${path}`,
        options,
        ({ put }, abortSignal) =>
          put(path, toBlob(body, contentType), this.writeOptions(contentType, false, abortSignal)),
        { write: true, passThrough: isAlreadyExists },
      );
      return true;
    } catch (error) {
      if (isAlreadyExists(error)) return false;
      throw error;
    }
  }

  async get(path: string, options: GetOptions = {}): Promise<Uint8Array | null> {
    return (await this.getVersioned(path, options))?.bytes ?? null;
  }

  /**
   * The deadline and this store's bound cover the request up to its response headers; the body
   * then streams for as long as the caller reads it.
   */
  async getStream(path: string, options: GetOptions = {}): Promise<ObjectStream | null> {
    const { maxBytes } = options;
    return this.read(path, options, async (stream, { size }) => {
      if (maxBytes === undefined) return { body: stream, size };
      if (size > maxBytes) {
        await stream.cancel().catch(() => {});
        throw new ObjectTooLargeError(path, size, maxBytes);
      }
      return { body: limitStream(stream, maxBytes, path), size };
    });
  }

  /** The version is the blob's ETag, which `ifMatch` names in a conditional write. */
  async getVersioned(path: string, options: GetOptions = {}): Promise<VersionedObject | null> {
    const { maxBytes } = options;
    return this.read(path, options, async (stream, { size, etag: version }) => {
      if (maxBytes === undefined)
        return { bytes: new Uint8Array(await new Response(stream).arrayBuffer()), version };
      return { bytes: await readAtMost(stream, size, maxBytes, path), version };
    });
  }

  async putIfVersion(
    path: string,
    body: ObjectBody,
    contentType: string,
    version: string,
    options: StoreCallOptions = {},
  ): Promise<boolean> {
    assertObjectPath(path);
    return this.conditional(`write ${path}`, options, ({ put }, abortSignal) =>
      put(path, toBlob(body, contentType), {
        ...this.writeOptions(contentType, true, abortSignal),
        ifMatch: version,
      }),
    );
  }

  async deleteIfVersion(path: string, version: string, options: StoreCallOptions = {}): Promise<boolean> {
    assertObjectPath(path);
    return this.conditional(`delete ${path}`, options, ({ del }, abortSignal) =>
      del(path, { token: this.token, abortSignal, ifMatch: version }),
    );
  }

  async copy(from: string, to: string, contentType: string, options: StoreCallOptions = {}) {
    assertObjectPath(from);
    assertObjectPath(to);
    await this.call(
      `copy ${from} to ${to}`,
      options,
      ({ copy }, abortSignal) => copy(from, to, this.writeOptions(contentType, true, abortSignal)),
      { write: true },
    );
  }

  async delete(path: string, options: StoreCallOptions = {}): Promise<void> {
    assertObjectPath(path);
    await this.call(
      `delete ${path}`,
      options,
      ({ del }, abortSignal) => del(path, { token: this.token, abortSignal }),
      { write: true },
    );
  }

  async *list(prefix: string, options: StoreCallOptions = {}): AsyncIterable<ObjectInfo> {
    assertObjectPrefix(prefix);
    let cursor: string | undefined;
    do {
      const page = await this.call(`list ${prefix || "the inbox"}`, options, ({ list }, abortSignal) =>
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

  /**
   * A write with `ifMatch`: `true` once the store took it, `false` when it answered that the blob
   * is no longer at that ETag (412) or is gone.
   */
  private async conditional(
    action: string,
    options: StoreCallOptions,
    work: (sdk: VercelBlob, abortSignal: AbortSignal) => Promise<unknown>,
  ): Promise<boolean> {
    try {
      await this.call(action, options, work, { write: true, passThrough: isStaleVersion });
      return true;
    } catch (error) {
      if (isStaleVersion(error)) return false;
      throw error;
    }
  }

  /** One read of `path` within `call`'s bounds: `consume` gets the body and the blob's size and ETag. */
  private read<T>(
    path: string,
    options: StoreCallOptions,
    consume: (stream: ReadableStream<Uint8Array>, blob: { size: number; etag: string }) => Promise<T>,
  ): Promise<T | null> {
    assertObjectPath(path);
    return this.call(
      `read ${path}`,
      options,
      async ({ get }, abortSignal) => {
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
        return consume(result.stream, result.blob);
      },
      { passThrough: (error) => error instanceof ObjectTooLargeError },
    );
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

  /** Runs one SDK call within the caller's deadline and this store's bounds (`blobCall`). */
  private call<T>(
    action: string,
    options: StoreCallOptions,
    work: (sdk: VercelBlob, abortSignal: AbortSignal) => Promise<T>,
    kind: CallKind = {},
  ): Promise<T> {
    return blobCall(action, options, work, this.limits, kind);
  }
}

/** A conditional write refused because the blob changed, or is gone. */
function isStaleVersion(error: unknown): boolean {
  const sdk = loadedVercelBlob();
  return (
    sdk !== null &&
    (error instanceof sdk.BlobPreconditionFailedError || error instanceof sdk.BlobNotFoundError)
  );
}

/**
 * With `allowOverwrite: false` an existing object is refused as "This blob already exists"; when
 * two writers race, the loser's conditional write fails as a precondition instead.
 */
function isAlreadyExists(error: unknown): boolean {
  const sdk = loadedVercelBlob();
  return (
    sdk !== null &&
    (error instanceof sdk.BlobPreconditionFailedError ||
      (error instanceof sdk.BlobError && /already exists/i.test(error.message)))
  );
}
