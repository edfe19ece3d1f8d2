import {
  copyFile,
  type FileHandle,
  link,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
} from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { withinDeadline } from "./deadline";
import { DirectorySyncs } from "./directory-sync";
import { currentVersion, versionOf, withLock } from "./filesystem-lock";
import { isCode, type Step, TEMP_PREFIX, tempPath, UPLOAD_PREFIX } from "./filesystem-paths";
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
  type ObjectStream,
  ObjectTooLargeError,
  type ObjectUpload,
  type StoreCallOptions,
  StoreUnavailableError,
  type VersionedObject,
} from "./types";

/** Times a save makes its folder again when a concurrent delete pruned it before the file was in. */
const FOLDER_RETRIES = 5;

/**
 * The embedded inbox: objects as files under one directory (`INBOX_DIR`).
 *
 * Durable: a write is complete only once the file is fsynced, renamed (or linked) into place, and
 * every directory whose entry it created or renamed is fsynced too, so a power cut after the
 * answer loses nothing. Bounded: each call answers by the caller's deadline; the work under it
 * stops at its next system call, and a call that was already waiting on the disk is tracked
 * (`StoreCallOptions.track`) so what it does late can be undone.
 *
 * Every system call goes through `node:fs/promises`, so it waits on libuv's pool, never on the
 * thread that serves the requests: a hung disk holds the pool, while every request is still
 * answered at its deadline.
 */
export class FilesystemStore implements ObjectStore {
  readonly driver = "filesystem";
  readonly root: string;
  private readonly directories: DirectorySyncs;
  /**
   * Folders made whose own entry, in the folder above, no completed fsync covers yet, each with a
   * mark that moves whenever the folder is made again. A save that finds its folder (or one above
   * it) already made, by a concurrent save still on its way to that sync, must not answer before
   * the sync either: it syncs the folder above each such entry on its path too (sharing the other
   * save's fsync where the timing allows). A folder made beside its path is not its concern.
   */
  private readonly unsynced = new Map<string, number>();
  private marks = 0;

  /** `syncDirectory` flushes one folder's entries; tests give a stand-in to watch or hold one back. */
  constructor(root: string, options: { syncDirectory?: (folder: string) => Promise<void> } = {}) {
    this.root = resolve(root);
    this.directories = new DirectorySyncs(options.syncDirectory);
  }

  async put(path: string, body: ObjectBody, _contentType: string, options: StoreCallOptions = {}) {
    const target = this.locate(path);
    await this.bounded(`write ${path}`, options, async (step) => {
      const temp = await this.writeTempInFolder(target, body, step);
      try {
        step();
        await rename(temp, target);
      } catch (error) {
        await removeQuietly(temp);
        throw error;
      }
      await this.syncFolders(dirname(target));
    });
  }

  /**
   * Every body is written to its temporary file and flushed at once; then they are renamed into
   * place in order, and each folder is synced once for all of its new entries.
   */
  async putAll(entries: readonly ObjectEntry[], options: StoreCallOptions = {}): Promise<void> {
    const targets = entries.map((entry) => this.locate(entry.path));
    const folders = [...new Set(targets.map((target) => dirname(target)))];
    await this.bounded(`write ${entries.map((entry) => entry.path).join(", ")}`, options, async (step) => {
      await Promise.all(folders.map((folder) => this.makeFolder(folder, step)));
      const temps = await Promise.allSettled(
        entries.map((entry, index) => this.writeTempInFolder(targets[index] ?? "", entry.body, step)),
      );
      const written = temps.flatMap((temp) => (temp.status === "fulfilled" ? [temp.value] : []));
      try {
        const failed = temps.find((temp) => temp.status === "rejected");
        if (failed) throw failed.reason;
        for (const [index, temp] of written.entries()) {
          step();
          await rename(temp, targets[index] ?? "");
        }
      } catch (error) {
        await Promise.all(written.map(removeQuietly));
        throw error;
      }
      await Promise.all(folders.map((folder) => this.syncFolders(folder)));
    });
  }

  /**
   * The upload's bytes go to a hidden temporary file at the inbox's root as they arrive; `commit`
   * flushes it, renames it into place and syncs the folders, like `put`. A process that stops
   * mid-upload leaves a `.tmp-upload-*` file that no reader sees.
   */
  async beginUpload(options: StoreCallOptions = {}): Promise<ObjectUpload> {
    const spool = await this.bounded("start an upload", options, async (step) => {
      // The inbox's own folder may be made here: its entry is flushed with the upload's commit.
      await this.makeFolder(this.root, step);
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
        await this.bounded(`write ${path}`, options, async (step) => {
          await spool.sync();
          await spool.close();
          await this.place(spool.path, target, step);
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
    return this.bounded(`create ${path}`, options, async (step) => {
      const temp = await this.writeTempInFolder(target, body, step);
      try {
        step();
        // link() refuses an existing target, so exactly one of concurrent creators wins.
        await link(temp, target);
      } catch (error) {
        if (isCode(error, "EEXIST")) return false;
        throw error;
      } finally {
        await removeQuietly(temp);
      }
      await this.syncFolders(dirname(target));
      return true;
    });
  }

  async get(path: string, options: GetOptions = {}): Promise<Uint8Array | null> {
    const target = this.locate(path);
    const { maxBytes } = options;
    try {
      return await this.bounded(`read ${path}`, options, (step) => readWhole(target, path, maxBytes, step));
    } catch (error) {
      const cause = error instanceof StoreUnavailableError ? error.cause : error;
      if (cause instanceof ObjectTooLargeError) throw cause;
      if (isCode(cause, "ENOENT") || isCode(cause, "ENOTDIR")) return null;
      throw error;
    }
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
        temp = await writeTemp(target, body, step);
      } catch (error) {
        // No folder: the object is gone, so it is not at `version`.
        if (isCode(error, "ENOENT") || isCode(error, "ENOTDIR")) return false;
        throw error;
      }
      let written = false;
      try {
        written = await withLock(target, step, async () => {
          if ((await currentVersion(target)) !== version) return false;
          step();
          await rename(temp, target);
          return true;
        });
        if (written) await this.syncFolders(dirname(target));
        return written;
      } finally {
        if (!written) await removeQuietly(temp);
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
      if (removed) {
        await this.syncFolders(dirname(target));
        await this.pruneEmptyFolders(dirname(target));
      }
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
        await this.place(temp, target, step);
      } catch (error) {
        await removeQuietly(temp);
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
        return;
      }
      await this.pruneEmptyFolders(dirname(target));
    });
  }

  /**
   * Removes `folder` and each folder above it, up to the inbox's root (kept), while they are empty:
   * an erased brief or a removed record leaves no empty folder behind. `rmdir` removes only an
   * empty folder, atomically, so a folder a concurrent save is writing into (its temporary file
   * is there) stays; a save that made the folder and meets it removed before its file is in makes
   * it again (`writeTempInFolder`, `place`).
   */
  private async pruneEmptyFolders(folder: string): Promise<void> {
    for (let current = folder; current.startsWith(this.root + sep); current = dirname(current)) {
      try {
        await rmdir(current);
      } catch (error) {
        // Gone already (another delete pruned it): its parent may be empty now too.
        if (isCode(error, "ENOENT")) continue;
        // Not empty (ENOTEMPTY, EEXIST), or not ours to remove: whatever is above it is not empty either.
        return;
      }
    }
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
   * Renames the flushed file `from` to `target`, making `target`'s folder first if need be, and
   * flushes the folders' new entries, as `put` does.
   */
  private async place(from: string, target: string, step: Step): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      await this.makeFolder(dirname(target), step);
      step();
      try {
        await rename(from, target);
        break;
      } catch (error) {
        // The folder was pruned by a delete between its making and the rename: made again.
        if (!isCode(error, "ENOENT") || attempt >= FOLDER_RETRIES) throw error;
      }
    }
    await this.syncFolders(dirname(target));
  }

  /**
   * Flushes the entries of `folder`, and of the folder above each folder on its path whose own entry
   * no completed fsync covers yet (made by this save, or by a concurrent one that has not synced it
   * yet), all at once; a sync of the same folder that another save started after this one's entry
   * was made serves both.
   */
  private async syncFolders(folder: string): Promise<void> {
    const folders = new Set([folder]);
    const entries: { made: string; mark: number }[] = [];
    for (let made = folder; dirname(made) !== made; made = dirname(made)) {
      const mark = this.unsynced.get(made);
      if (mark === undefined) continue;
      folders.add(dirname(made));
      entries.push({ made, mark });
    }
    await Promise.all([...folders].map((path) => this.directories.sync(path)));
    // Those syncs began after this call, so they cover every entry marked up to its mark.
    for (const { made, mark } of entries) if (this.unsynced.get(made) === mark) this.unsynced.delete(made);
  }

  /**
   * `writeTemp` into the target's folder, which usually exists (a day's briefs, the subscribers):
   * the folder is made only when the first open finds it missing. One system call fewer per write
   * than making sure of the folder first.
   */
  private async writeTempInFolder(target: string, body: ObjectBody, step: Step): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await writeTemp(target, body, step);
      } catch (error) {
        // Missing, or pruned by a delete that emptied it between its making and this open.
        if (!isCode(error, "ENOENT") || attempt >= FOLDER_RETRIES) throw error;
        await this.makeFolder(dirname(target), step);
      }
    }
  }

  /**
   * Creates `folder` and any missing parents, and records each folder made as an entry not yet
   * flushed: `syncFolders` on a path through it then syncs the folder above it.
   */
  private async makeFolder(folder: string, step: Step): Promise<void> {
    step();
    const first = await mkdir(folder, { recursive: true });
    // Recorded before the deadline is checked: a folder made late stays for a later save to flush.
    if (first !== undefined) {
      for (let made = folder; made.length >= first.length; made = dirname(made)) {
        this.unsynced.set(made, ++this.marks);
      }
    }
    step();
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

/**
 * Writes the body to a hidden temporary file beside the target and flushes it to disk. A vectored
 * write can be cut short without an error (the disk filled up, a file-size limit or quota was
 * reached), so it goes on from where it stopped: the next write then fails with the system's own
 * error instead of a truncated file passing as whole.
 */
async function writeTemp(target: string, body: ObjectBody, step: Step): Promise<string> {
  const temp = tempPath(target);
  const chunks =
    typeof body === "string" ? [Buffer.from(body, "utf8")] : body instanceof Uint8Array ? [body] : body;
  const file = await open(temp, "wx", 0o600);
  try {
    let pending = chunks.filter((chunk) => chunk.byteLength > 0);
    while (pending.length > 0) {
      step();
      const { bytesWritten } = await file.writev(pending);
      if (bytesWritten <= 0) throw new Error("The write made no progress.");
      pending = dropBytes(pending, bytesWritten);
    }
    step();
    await file.sync();
  } catch (error) {
    await file.close().catch(() => {});
    await removeQuietly(temp);
    throw error;
  }
  try {
    await file.close();
  } catch (error) {
    await removeQuietly(temp);
    throw error;
  }
  return temp;
}

/** The chunks that remain after the first `count` bytes (views, no copies). */
function dropBytes(chunks: readonly Uint8Array[], count: number): Uint8Array[] {
  let skip = count;
  const rest: Uint8Array[] = [];
  for (const chunk of chunks) {
    if (skip >= chunk.byteLength) skip -= chunk.byteLength;
    else {
      rest.push(skip > 0 ? chunk.subarray(skip) : chunk);
      skip = 0;
    }
  }
  return rest;
}

/**
 * A whole file as a Buffer. With `maxBytes`, a larger one is refused by its recorded size before
 * any byte is read, and by the bytes counted while reading: a file that is not what its size says
 * (a FIFO, something else writing it) is never read past the bound.
 */
async function readWhole(target: string, path: string, maxBytes: number | undefined, step: Step) {
  const file = await open(target, "r");
  try {
    step();
    const stats = await file.stat();
    const { size } = stats;
    if (maxBytes !== undefined && size > maxBytes) throw new ObjectTooLargeError(path, size, maxBytes);
    // Files are replaced by rename, never written in place: the open file cannot grow. A byte more
    // than its size is asked for all the same, and should it come (something else wrote it), the
    // rest is read to its end.
    const regular = stats.isFile();
    const chunks: Buffer[] = [];
    let total = 0;
    for (let length = size + 1; ; length = STREAM_CHUNK_BYTES) {
      step();
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await file.read(buffer, 0, length, null);
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (maxBytes !== undefined && total > maxBytes) throw new ObjectTooLargeError(path, total, maxBytes);
      // A regular file's read comes up short only at its end; anything else is read until a read finds nothing.
      if (bytesRead === 0 || (regular && bytesRead < length)) break;
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
  } finally {
    await file.close().catch(() => {});
  }
}

/** Removes a temporary file, if it is there: best effort, what is left is hidden and cleaned up later. */
async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => {});
}
