import { copyFile, type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { withinDeadline } from "./deadline";
import { currentVersion, versionOf, withLock } from "./filesystem-lock";
import { isCode, TEMP_PREFIX, tempPath, UPLOAD_PREFIX } from "./filesystem-paths";
import type { FilesystemWorkOptions, Step, WorkBody } from "./filesystem-work";
import { removeAbandonedSpools, SpoolFile } from "./spool";
import { limitStream } from "./streams";
import { type FileWorker, inlineFileWorker, threadFileWorker } from "./writer-thread";
import {
  assertObjectPath,
  assertObjectPrefix,
  type GetOptions,
  type ObjectBody,
  type ObjectEntry,
  type ObjectInfo,
  type ObjectStore,
  type ObjectStream,
  ObjectTooLargeError,
  type ObjectUpload,
  type StoreCallOptions,
  StoreUnavailableError,
  type VersionedObject,
} from "./types";

/**
 * The embedded inbox: objects as files under one directory (`INBOX_DIR`).
 *
 * Durable: a write is complete only once the file is fsynced, renamed (or linked) into place, and
 * every directory whose entry it created or renamed is fsynced too, so a power cut after the
 * answer loses nothing. Bounded: each call answers by the caller's deadline; the work under it
 * stops at its next system call, and a call that was already waiting on the disk is tracked
 * (`StoreCallOptions.track`) so what it does late can be undone.
 */
export class FilesystemStore implements ObjectStore {
  readonly driver = "filesystem";
  readonly root: string;
  /** Writes, small reads and directory fsyncs: on the inbox's file thread (see `writer-thread.ts`). */
  private readonly files: FileWorker;

  /** `syncDirectory` flushes one folder's entries; tests give a stand-in to hold one back. */
  constructor(root: string, options: FilesystemWorkOptions = {}) {
    this.root = resolve(root);
    this.files = options.syncDirectory ? inlineFileWorker(options) : threadFileWorker();
  }

  async put(path: string, body: ObjectBody, _contentType: string, options: StoreCallOptions = {}) {
    const target = this.locate(path);
    await this.bounded(`write ${path}`, options, () =>
      this.files.run("put", { target, body: workBody(body) }, options.signal),
    );
  }

  /**
   * Every body is written to its temporary file and flushed at once; then they are renamed into
   * place in order, and each folder is synced once for all of its new entries.
   */
  async putAll(entries: readonly ObjectEntry[], options: StoreCallOptions = {}): Promise<void> {
    const files = entries.map((entry) => ({ target: this.locate(entry.path), body: workBody(entry.body) }));
    await this.bounded(`write ${entries.map((entry) => entry.path).join(", ")}`, options, () =>
      this.files.run("putAll", { files }, options.signal),
    );
  }

  async beginUpload(options: StoreCallOptions = {}): Promise<ObjectUpload> {
    const spool = await this.bounded("start an upload", options, async (step) => {
      await mkdir(this.root, { recursive: true });
      const made = await SpoolFile.create(this.root, UPLOAD_PREFIX);
      try {
        step(); // made after the caller stopped waiting: nobody will discard it
      } catch (error) {
        await made.remove();
        throw error;
      }
      return made;
    });
    let placed = false;
    return {
      get size() {
        return spool.size;
      },
      write: (chunk, callOptions = {}) =>
        this.bounded("write an upload", callOptions, () => spool.write(chunk)),
      read: (target, position) => spool.read(target, position),
      commit: async (path, _contentType, options = {}) => {
        const target = this.locate(path);
        await this.bounded(`write ${path}`, options, async () => {
          await spool.sync();
          await spool.close();
          await this.files.run("place", { from: spool.path, target }, options.signal);
          placed = true;
          await spool.remove({ renamed: true });
        });
      },
      discard: async () => {
        if (!placed) await spool.remove();
      },
    };
  }

  async removeAbandonedUploads(before: Date, options: StoreCallOptions & { dryRun?: boolean } = {}) {
    return this.bounded("remove abandoned uploads", options, () =>
      removeAbandonedSpools(this.root, UPLOAD_PREFIX, before, {
        dryRun: options.dryRun,
        name: (fileName) => fileName,
      }),
    );
  }

  async create(path: string, body: ObjectBody, _contentType: string, options: StoreCallOptions = {}) {
    const target = this.locate(path);
    return this.bounded(`create ${path}`, options, () =>
      this.files.run("create", { target, body: workBody(body) }, options.signal),
    );
  }

  async get(path: string, options: GetOptions = {}): Promise<Uint8Array | null> {
    const target = this.locate(path);
    const { maxBytes } = options;
    const found = await this.bounded(`read ${path}`, options, () =>
      this.files.run("read", { target, maxBytes }, options.signal),
    );
    if (found !== null && "tooLarge" in found)
      throw new ObjectTooLargeError(path, found.tooLarge, maxBytes ?? 0);
    if (found === null) return null;
    // A Buffer, as from a read in this thread (the bytes came over without a copy).
    const { bytes } = found;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async getStream(path: string, options: GetOptions = {}): Promise<ObjectStream | null> {
    const target = this.locate(path);
    const { maxBytes } = options;
    const opening = async (step: Step) => {
      const file = await open(target, "r");
      try {
        // A file opened after the caller stopped waiting is closed here, not leaked.
        step();
        const { size } = await file.stat();
        if (maxBytes !== undefined && size > maxBytes) throw new ObjectTooLargeError(path, size, maxBytes);
        return { file, size };
      } catch (error) {
        await file.close();
        throw error;
      }
    };
    let opened: { file: FileHandle; size: number };
    try {
      opened = await this.bounded(`read ${path}`, options, opening);
    } catch (error) {
      const cause = error instanceof StoreUnavailableError ? error.cause : error;
      if (cause instanceof ObjectTooLargeError) throw cause;
      if (isCode(cause, "ENOENT") || isCode(cause, "ENOTDIR")) return null;
      throw error;
    }
    const body = fileStream(opened.file);
    return { body: maxBytes === undefined ? body : limitStream(body, maxBytes, path), size: opened.size };
  }

  async getVersioned(path: string, options: GetOptions = {}): Promise<VersionedObject | null> {
    const bytes = await this.get(path, options);
    return bytes === null ? null : { bytes, version: versionOf(bytes) };
  }

  /**
   * Compare-and-swap under the path's lock: the new body is written and flushed to a temporary
   * file first, then, holding the lock, the current file is read and compared with `version`,
   * and only if it matches is the temporary file renamed into place. Readers never wait: they
   * see the old file or the new one, whole.
   */
  async putIfVersion(
    path: string,
    body: ObjectBody,
    _contentType: string,
    version: string,
    options: StoreCallOptions = {},
  ): Promise<boolean> {
    const target = this.locate(path);
    return this.bounded(`write ${path}`, options, async (step) => {
      let temp: string;
      try {
        temp = await this.files.run("writeTemp", { target, body: workBody(body) }, options.signal);
      } catch (error) {
        // No folder: the object is gone, so it is not at `version`.
        if (isCode(error, "ENOENT") || isCode(error, "ENOTDIR")) return false;
        throw error;
      }
      try {
        const written = await withLock(target, step, async () => {
          if ((await currentVersion(target)) !== version) return false;
          step();
          await rename(temp, target);
          return true;
        });
        if (written)
          await this.files.run("syncFolders", { folder: dirname(target), created: [] }, options.signal);
        return written;
      } finally {
        await rm(temp, { force: true });
      }
    });
  }

  async deleteIfVersion(path: string, version: string, options: StoreCallOptions = {}): Promise<boolean> {
    const target = this.locate(path);
    return this.bounded(`delete ${path}`, options, async (step) => {
      const removed = await withLock(target, step, async () => {
        if ((await currentVersion(target)) !== version) return false;
        step();
        await unlink(target);
        return true;
      });
      if (removed)
        await this.files.run("syncFolders", { folder: dirname(target), created: [] }, options.signal);
      return removed;
    });
  }

  async copy(from: string, to: string, _contentType: string, options: StoreCallOptions = {}) {
    const source = this.locate(from);
    const target = this.locate(to);
    await this.bounded(`copy ${from} to ${to}`, options, async (step) => {
      // The copy is made beside the source (whose folder exists), flushed, then placed.
      const temp = tempPath(source);
      try {
        await copyFile(source, temp);
        step();
        const file = await open(temp, "r+");
        await file.sync().finally(() => file.close());
        step();
        await this.files.run("place", { from: temp, target }, options.signal);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    });
  }

  async delete(path: string, options: StoreCallOptions = {}): Promise<void> {
    const target = this.locate(path);
    await this.bounded(`delete ${path}`, options, async () => {
      try {
        await rm(target, { force: true });
      } catch (error) {
        // A file where a folder of the path should be: the object cannot exist.
        if (!isCode(error, "ENOTDIR")) throw error;
      }
    });
  }

  async *list(prefix: string, options: StoreCallOptions = {}): AsyncIterable<ObjectInfo> {
    assertObjectPrefix(prefix);
    // Start in the deepest folder the prefix names whole; a partial last segment filters below it.
    const start = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    yield* this.walk(start, prefix, options);
  }

  /** Depth-first in name order, a folder sorting as `name/`, so paths come out in ascending order. */
  private async *walk(folder: string, prefix: string, options: StoreCallOptions): AsyncIterable<ObjectInfo> {
    const directory = folder === "" ? this.root : join(this.root, ...folder.split("/"));
    let entries;
    try {
      entries = await this.bounded(`list ${folder || "the inbox"}`, options, () =>
        readdir(directory, { withFileTypes: true }),
      );
    } catch (error) {
      const cause = error instanceof StoreUnavailableError ? error.cause : error;
      if (isCode(cause, "ENOENT") || isCode(cause, "ENOTDIR")) return;
      throw error;
    }
    const named = entries
      .filter((entry) => !entry.name.startsWith(TEMP_PREFIX) && (entry.isFile() || entry.isDirectory()))
      .map((entry) => ({ entry, key: entry.isDirectory() ? `${entry.name}/` : entry.name }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const { entry } of named) {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (`${path}/`.startsWith(prefix) || prefix.startsWith(`${path}/`)) {
          yield* this.walk(path, prefix, options);
        }
      } else if (path.startsWith(prefix)) {
        const info = await this.bounded(`read ${path}`, options, () =>
          stat(join(this.root, ...path.split("/"))),
        ).catch((error: StoreUnavailableError) => {
          if (isCode(error.cause, "ENOENT")) return null; // removed while listing
          throw error;
        });
        if (info) yield { path, size: info.size, uploadedAt: info.mtime };
      }
    }
  }

  private locate(path: string): string {
    assertObjectPath(path);
    return join(this.root, ...path.split("/"));
  }

  /**
   * Runs one call's work within the caller's deadline: the work is tracked and goes on past it
   * only to its next step. Every failure becomes `StoreUnavailableError`, with the system's error
   * as its cause.
   */
  private async bounded<T>(action: string, options: StoreCallOptions, work: (step: Step) => Promise<T>) {
    const { signal } = options;
    const step: Step = () => signal?.throwIfAborted();
    try {
      step();
      return await withinDeadline(work(step), options, action);
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError(`Could not ${action}`, { cause: error });
    }
  }
}

/** Bytes read from the stream at a time. */
const STREAM_CHUNK_BYTES = 64 * 1024;

/**
 * An open file's bytes, read a chunk at a time as the consumer pulls them; the file is closed at
 * the end, on an error, or when the consumer cancels.
 */
function fileStream(file: FileHandle): ReadableStream<Uint8Array> {
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await file.close().catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const buffer = Buffer.allocUnsafe(STREAM_CHUNK_BYTES);
          const { bytesRead } = await file.read(buffer, 0, buffer.byteLength, null);
          if (bytesRead === 0) {
            await close();
            controller.close();
          } else {
            controller.enqueue(buffer.subarray(0, bytesRead));
          }
        } catch (error) {
          await close();
          controller.error(error);
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}

/** A body as the file work takes it: text, or chunks (one buffer is one chunk). */
function workBody(body: ObjectBody): WorkBody {
  return typeof body === "string" || Array.isArray(body) ? body : [body as Uint8Array];
}
