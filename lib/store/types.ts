/** Bytes to store: text, one buffer, or the chunks an upload arrived in (written without joining them). */
export type ObjectBody = string | Uint8Array | readonly Uint8Array[];

/** One object to write with `putAll`. */
export interface ObjectEntry {
  path: string;
  body: ObjectBody;
  contentType: string;
}

/** One stored object, as `list` reports it. */
export interface ObjectInfo {
  path: string;
  size: number;
  uploadedAt: Date;
}

/** An upload's temporary file found abandoned: `path` as the store names it, `lastWritten` its mtime. */
export interface AbandonedUpload {
  path: string;
  size: number;
  lastWritten: Date;
}

export interface StoreCallOptions {
  /**
   * The caller's deadline. When it aborts, the call stops waiting and throws
   * `StoreUnavailableError` at once. What the call was doing stops at its next step (the
   * filesystem driver checks between system calls; the Blob driver cancels a read), except a
   * remote write already sent, which is left to learn its outcome (see `BlobStore`).
   */
  signal?: AbortSignal;
  /**
   * Given the call's own work, which may outlive `signal`: settled once nothing the call started
   * can still change the store. `Deadline` uses it to undo what lands late.
   */
  track?: (work: Promise<unknown>) => void;
}

export interface GetOptions extends StoreCallOptions {
  /**
   * Refuse an object larger than this with `ObjectTooLargeError`: judged on its recorded size
   * before any byte is read, and on the bytes counted while reading, so an object that is not
   * what it claims is never read past the bound.
   */
  maxBytes?: number;
}

/** An object opened for reading: its bytes arrive as the consumer pulls them. */
export interface ObjectStream {
  /**
   * The object's bytes. Cancel it to stop early (that releases the file or the connection). With
   * `maxBytes`, it errors with `ObjectTooLargeError` as soon as more bytes than that arrive.
   */
  body: ReadableStream<Uint8Array>;
  /** The size the store records for the object, in bytes. */
  size: number;
}

/**
 * An object written from a stream before its path is known: a file in a request, whose name in the
 * inbox depends on a type read from its bytes. The bytes go to a temporary place as they arrive
 * (never whole in memory); nothing is visible to `get` or `list` until `commit` places them, whole,
 * at a path. `discard` removes the temporary bytes; it is safe to call at any point, more than once,
 * and after `commit` (then it does nothing).
 */
export interface ObjectUpload {
  /**
   * Appends a chunk; resolves once it is written (the caller waits: that is the back-pressure).
   * Bounded by `options` like any store call.
   */
  write(chunk: Uint8Array, options?: StoreCallOptions): Promise<void>;
  /** Bytes written so far. */
  readonly size: number;
  /**
   * Reads up to `target.byteLength` bytes from `position` of what has been written into `target`,
   * answering how many: for reading a file's type from its structure (a DOCX is a ZIP whose entries
   * say what it is) without holding it in memory.
   */
  read(target: Uint8Array, position: number): Promise<number>;
  /**
   * Places the bytes at `path` (replacing any object there), as durably as `put`; after it, the
   * upload's temporary bytes are gone. Bounded by the caller's deadline like any store call.
   */
  commit(path: string, contentType: string, options?: StoreCallOptions): Promise<void>;
  discard(): Promise<void>;
}

/** An object's bytes with the version a conditional write or delete names. */
export interface VersionedObject {
  bytes: Uint8Array;
  /**
   * Opaque: what the object is now, as its driver tells versions apart (the filesystem: a SHA-256
   * of the bytes; Vercel Blob: the ETag). Only ever compared with what the same store answers.
   */
  version: string;
}

/**
 * The inbox's storage: a flat namespace of objects named by slash-separated paths
 * (`briefs/2026/11/22/<reference>/brief.json`). Drivers: filesystem and Vercel Blob.
 * Every failure to reach or write the store is a `StoreUnavailableError`.
 */
export interface ObjectStore {
  readonly driver: "filesystem" | "vercel-blob";
  /** Writes an object whole, replacing any earlier one; readers never see it half-written. */
  put(path: string, body: ObjectBody, contentType: string, options?: StoreCallOptions): Promise<void>;
  /**
   * Writes several objects, each whole like `put`, placed in the order given (so the last one can
   * be a commit point), and all durable when it returns: the filesystem flushes each folder's new
   * entries once for all of them. Not atomic as a group: after a failure some may be in place, for
   * the caller to remove.
   */
  putAll(entries: readonly ObjectEntry[], options?: StoreCallOptions): Promise<void>;
  /**
   * Starts an object whose bytes arrive over time and whose path is chosen once they are all in
   * (see `ObjectUpload`): the filesystem keeps them in a temporary file in the inbox that `commit`
   * renames into place; Vercel Blob spools them to a local temporary file that `commit` streams to
   * the store. Throws `StoreUnavailableError` when the temporary file cannot be made; one made
   * after the caller's deadline removes itself.
   */
  beginUpload(options?: StoreCallOptions): Promise<ObjectUpload>;
  /**
   * Removes the temporary files of uploads that a stopped process never finished (`beginUpload`'s,
   * last written before `before`), or with `dryRun` only finds them: in the inbox's folder on the
   * filesystem, in this machine's temporary folder for Vercel Blob.
   */
  removeAbandonedUploads(
    before: Date,
    options?: StoreCallOptions & { dryRun?: boolean },
  ): Promise<AbandonedUpload[]>;
  /** Writes an object only if none exists at `path`; `false` when one does. Atomic. */
  create(path: string, body: ObjectBody, contentType: string, options?: StoreCallOptions): Promise<boolean>;
  /** The object's bytes, or `null` when there is none. */
  get(path: string, options?: GetOptions): Promise<Uint8Array | null>;
  /**
   * The object opened for streaming (a download, an email attachment), or `null` when there is
   * none. The caller's deadline bounds the opening, up to the first byte; the stream is then the
   * caller's to read or cancel. `maxBytes` refuses a larger object with `ObjectTooLargeError`,
   * before any byte when its recorded size says so, else when the counted bytes pass it.
   */
  getStream(path: string, options?: GetOptions): Promise<ObjectStream | null>;
  /** The object's bytes and its current version, for a conditional write; `null` when there is none. */
  getVersioned(path: string, options?: GetOptions): Promise<VersionedObject | null>;
  /**
   * Replaces the object only if it is still at `version` (as `getVersioned` read it): a
   * compare-and-swap, atomic against every other conditional write or delete of the path. `false`
   * when the object has changed or is gone, and nothing was written by this call's answer.
   * A remote store's client may retry a write whose answer was lost and meet its own write as a
   * change: `false` then too. A caller that must know writes something unique and reads it back
   * (`replaceIfUnchanged` does).
   */
  putIfVersion(
    path: string,
    body: ObjectBody,
    contentType: string,
    version: string,
    options?: StoreCallOptions,
  ): Promise<boolean>;
  /**
   * Removes the object only if it is still at `version`; `false` when it has changed or is gone.
   * Atomic like `putIfVersion`.
   */
  deleteIfVersion(path: string, version: string, options?: StoreCallOptions): Promise<boolean>;
  /**
   * Copies the object at `from` to `to` (replacing any object there) without passing its bytes
   * through this process where the store can do it itself. A missing `from` fails like an
   * unreachable store: the caller just read it, so its absence is not a visitor's mistake.
   */
  copy(from: string, to: string, contentType: string, options?: StoreCallOptions): Promise<void>;
  /** Removes the object; removing a missing one is not an error. */
  delete(path: string, options?: StoreCallOptions): Promise<void>;
  /**
   * Every object whose path starts with `prefix` (a plain string prefix: `briefs/2026/11/` or
   * `briefs/2026/1`; `""` lists everything), in ascending path order, fetched as it is iterated.
   */
  list(prefix: string, options?: StoreCallOptions): AsyncIterable<ObjectInfo>;
}

/** The store could not be reached or written. Answered as 503 `storage_unavailable`. */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}

/** `get` with `maxBytes` found a larger object; `size` is what it knew of it when it stopped. */
export class ObjectTooLargeError extends Error {
  override name = "ObjectTooLargeError";
  readonly size: number;

  constructor(path: string, size: number, maxBytes: number) {
    super(`${path} is over ${maxBytes} bytes (at least ${size})`);
    this.size = size;
  }
}

/** Paths are built by this code base, never taken from a request; still, refuse anything odd. */
export function assertObjectPath(path: string): void {
  const segments = path.split("/");
  if (
    path.length === 0 ||
    path.length > 512 ||
    segments.some((segment) => segment === "" || segment === "." || segment === "..") ||
    /[\u0000-\u001f\\]/.test(path)
  ) {
    throw new Error(`Invalid object path: ${JSON.stringify(path)}`);
  }
}

/** A list prefix: empty, or a valid path that may end in `/` or stop inside a segment. */
export function assertObjectPrefix(prefix: string): void {
  if (prefix === "") return;
  const trimmed = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  try {
    assertObjectPath(trimmed);
  } catch {
    throw new Error(`Invalid object prefix: ${JSON.stringify(prefix)}`);
  }
}
