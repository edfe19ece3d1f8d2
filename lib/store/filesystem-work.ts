/**
 * The filesystem inbox's file work: durable writes, small reads, and the directory fsyncs they
 * share. `FilesystemStore` runs it on a thread of its own (`writer-thread.ts`), where each file's
 * system calls and their callbacks cost the request thread nothing: a brief or a subscriber is one
 * message there and one back, instead of a dozen callbacks, each with hooks under Next's
 * AsyncLocalStorage, on the thread every request shares.
 *
 * Self-contained, because the thread runs it from its source text
 * (`createFilesystemWork.toString()`): it uses nothing from outside its own body except the modules
 * `load` gives it.
 */

/** Bytes to write: text, or chunks written as they are, without joining them. */
export type WorkBody = string | readonly Uint8Array[];

/** Throws once the caller's deadline has passed: called between system calls. */
export type Step = () => void;

/** What `read` found: the bytes; the size of a file over `maxBytes`; or nothing there. */
export type ReadResult = { bytes: Uint8Array } | { tooLarge: number } | null;

export interface FilesystemWork {
  /** Writes `body` to `target` whole (a temporary file, fsynced, renamed into place), durably. */
  put(args: { target: string; body: WorkBody }, step: Step): Promise<void>;
  /** Writes each file like `put`, placed in order, each folder's new entries flushed once. */
  putAll(args: { files: { target: string; body: WorkBody }[] }, step: Step): Promise<void>;
  /** Writes `target` only if nothing is there (a hard link refuses an existing name). */
  create(args: { target: string; body: WorkBody }, step: Step): Promise<boolean>;
  /**
   * Writes `body` to a hidden temporary file beside `target` (whose folder must exist), flushed,
   * and answers its path: for a conditional write, which renames it under a lock.
   */
  writeTemp(args: { target: string; body: WorkBody }, step: Step): Promise<string>;
  /**
   * Renames the flushed file `from` to `target`, making `target`'s folder first if need be, and
   * flushes the folders' new entries, as `put` does.
   */
  place(args: { from: string; target: string }, step: Step): Promise<void>;
  /** A whole file, or `null` when there is none. */
  read(args: { target: string; maxBytes?: number }, step: Step): Promise<ReadResult>;
  /**
   * Creates `folder` and any missing parents; answers the folders whose new entries must be
   * flushed (`syncFolders`' `created`).
   */
  makeFolder(args: { folder: string }, step: Step): Promise<string[]>;
  /**
   * Flushes the entries of `folder`, of each of `created`, and of any folder above `folder` that
   * gained an entry no completed fsync covers yet (made by a concurrent save that has not synced
   * it yet). A sync of the same folder that begins after this call serves every caller waiting.
   */
  syncFolders(args: { folder: string; created: readonly string[] }, step: Step): Promise<void>;
}

export interface FilesystemWorkOptions {
  /** Flushes one folder's entries; tests give a stand-in to hold one back or watch coalescing. */
  syncDirectory?: (folder: string) => Promise<void>;
}

export type ModuleLoader = (id: "node:fs" | "node:path" | "node:crypto") => unknown;

export function createFilesystemWork(
  load: ModuleLoader,
  options: FilesystemWorkOptions = {},
): FilesystemWork {
  const fs = load("node:fs") as typeof import("node:fs");
  const { dirname, join } = load("node:path") as typeof import("node:path");
  const { randomBytes } = load("node:crypto") as typeof import("node:crypto");

  /**
   * One system call as a promise, run on libuv's pool (in this thread a promise costs no request
   * hooks). Only for the calls that wait on the disk itself: fsyncs, and reads of files whose open
   * may block (a FIFO, a network mount). The rest (open, write to the page cache, rename, link,
   * mkdir, close) are made synchronously on this thread: each is microseconds of kernel work,
   * while a trip through the pool costs two thread wake-ups and a callback on each side, which
   * under load was most of the file work's CPU.
   */
  const call = <T = void>(start: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void) =>
    new Promise<T>((resolve, reject) =>
      start((error, value) => (error ? reject(error) : resolve(value as T))),
    );
  const isCode = (error: unknown, code: string) =>
    typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
  /** Removes a temporary file, if it is there: best effort, what is left is cleaned up later. */
  const remove = (path: string) => {
    try {
      fs.unlinkSync(path);
    } catch {
      // Gone already, or left for the next cleanup.
    }
  };

  const closeQuietly = (fd: number) => {
    try {
      fs.closeSync(fd);
    } catch {
      // Already failing: the first error is the one the caller hears.
    }
  };

  /** Opens, fsyncs and closes a directory. */
  const fsyncDirectory = async (folder: string) => {
    const fd = fs.openSync(folder, "r");
    try {
      await call((done) => fs.fsync(fd, done));
    } finally {
      fs.closeSync(fd);
    }
  };
  const syncDirectory = options.syncDirectory ?? fsyncDirectory;

  /**
   * Group commit for directory entries. An fsync of a directory makes durable every entry made in
   * it before the fsync began, so concurrent saves into one folder (the day's `briefs/YYYY/MM/DD`,
   * `newsletter/subscribers`) share one: a caller whose entry is made while a sync of that folder is
   * running waits for the next one, which starts when the running one ends and serves everyone who
   * asked meanwhile. Never does a caller return on a sync that began before its entry was made.
   */
  const syncs = new Map<string, { running: Promise<void>; next: Promise<void> | null }>();
  const startSync = (folder: string): Promise<void> => {
    const state = { running: syncDirectory(folder), next: null as Promise<void> | null };
    syncs.set(folder, state);
    const done = () => {
      if (syncs.get(folder) === state) syncs.delete(folder);
    };
    state.running.then(done, done);
    return state.running;
  };
  const syncFolder = (folder: string): Promise<void> => {
    const current = syncs.get(folder);
    if (current === undefined) return startSync(folder);
    current.next ??= current.running.then(
      () => startSync(folder),
      () => startSync(folder),
    );
    return current.next;
  };

  /**
   * Folders that gained an entry (a folder made inside them) that no completed fsync covers yet,
   * each with a mark that moves on every new entry.
   */
  const unsynced = new Map<string, number>();
  let marks = 0;

  const syncFolders: FilesystemWork["syncFolders"] = async ({ folder, created }) => {
    const folders = new Set([folder, ...created]);
    for (let current = folder; dirname(current) !== current;) {
      current = dirname(current);
      if (unsynced.has(current)) folders.add(current);
    }
    await Promise.all(
      [...folders].map(async (path) => {
        const mark = unsynced.get(path);
        await syncFolder(path);
        // The sync began after this call, so it covers every entry marked up to `mark`.
        if (mark !== undefined && unsynced.get(path) === mark) unsynced.delete(path);
      }),
    );
  };

  const makeFolder: FilesystemWork["makeFolder"] = async ({ folder }, step) => {
    step();
    const first = fs.mkdirSync(folder, { recursive: true });
    step();
    if (first === undefined) return [];
    // The parent of the first folder made, and each made folder above `folder` (`folder` itself is
    // synced once its file is renamed into it).
    const created: string[] = [];
    for (let current = dirname(folder); current.length >= first.length; current = dirname(current)) {
      created.push(current);
    }
    created.push(dirname(first));
    for (const parent of created) unsynced.set(parent, ++marks);
    return created;
  };

  /**
   * Writes the body to a hidden temporary file beside the target and flushes it to disk. A
   * vectored write can be cut short without an error (the disk filled up, a file-size limit or
   * quota was reached), so it goes on from where it stopped: the next write then fails with the
   * system's own error instead of a truncated file passing as whole.
   */
  const writeTemp = async (target: string, body: WorkBody, step: Step): Promise<string> => {
    const temp = join(dirname(target), `.tmp-${randomBytes(8).toString("hex")}`);
    const fd = fs.openSync(temp, "wx", 0o600);
    try {
      let pending = (typeof body === "string" ? [Buffer.from(body, "utf8")] : body).filter(
        (chunk) => chunk.byteLength > 0,
      );
      while (pending.length > 0) {
        step();
        const written = fs.writevSync(fd, pending as Uint8Array[]);
        if (written <= 0) throw new Error("The write made no progress.");
        pending = dropBytes(pending, written);
      }
      step();
      await call((done) => fs.fsync(fd, done));
    } catch (error) {
      closeQuietly(fd);
      remove(temp);
      throw error;
    }
    fs.closeSync(fd);
    return temp;
  };

  /** The chunks that remain after the first `count` bytes (views, no copies). */
  const dropBytes = (chunks: readonly Uint8Array[], count: number): Uint8Array[] => {
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
  };

  /**
   * `writeTemp` into the target's folder, which usually exists (a day's briefs, the subscribers):
   * the folder is made, and its new entries listed for syncing, only when the first open finds it
   * missing. One system call fewer per write than making sure of the folder first.
   */
  const writeTempInFolder = async (target: string, body: WorkBody, step: Step) => {
    try {
      return { temp: await writeTemp(target, body, step), created: [] as string[] };
    } catch (error) {
      if (!isCode(error, "ENOENT")) throw error;
      const created = await makeFolder({ folder: dirname(target) }, step);
      return { temp: await writeTemp(target, body, step), created };
    }
  };

  return {
    async put({ target, body }, step) {
      const { temp, created } = await writeTempInFolder(target, body, step);
      try {
        step();
        fs.renameSync(temp, target);
      } catch (error) {
        remove(temp);
        throw error;
      }
      await syncFolders({ folder: dirname(target), created }, step);
    },

    async putAll({ files }, step) {
      const folders = [...new Set(files.map((file) => dirname(file.target)))];
      const created = (await Promise.all(folders.map((folder) => makeFolder({ folder }, step)))).flat();
      const temps = await Promise.allSettled(files.map((file) => writeTemp(file.target, file.body, step)));
      const written = temps.flatMap((temp) => (temp.status === "fulfilled" ? [temp.value] : []));
      try {
        const failed = temps.find((temp) => temp.status === "rejected");
        if (failed) throw failed.reason;
        for (const [index, temp] of written.entries()) {
          step();
          fs.renameSync(temp, files[index]?.target ?? "");
        }
      } catch (error) {
        for (const temp of written) remove(temp);
        throw error;
      }
      await Promise.all(
        folders.map((folder, index) =>
          syncFolders({ folder, created: index === 0 ? [...new Set(created)] : [] }, step),
        ),
      );
    },

    async create({ target, body }, step) {
      const { temp, created } = await writeTempInFolder(target, body, step);
      try {
        step();
        // link() refuses an existing target, so exactly one of concurrent creators wins.
        fs.linkSync(temp, target);
      } catch (error) {
        if (isCode(error, "EEXIST")) return false;
        throw error;
      } finally {
        remove(temp);
      }
      await syncFolders({ folder: dirname(target), created }, step);
      return true;
    },

    writeTemp: ({ target, body }, step) => writeTemp(target, body, step),

    async place({ from, target }, step) {
      const created = await makeFolder({ folder: dirname(target) }, step);
      step();
      fs.renameSync(from, target);
      await syncFolders({ folder: dirname(target), created }, step);
    },

    async read({ target, maxBytes }, step) {
      let fd: number;
      try {
        fd = await call<number>((done) => fs.open(target, "r", done));
      } catch (error) {
        if (isCode(error, "ENOENT") || isCode(error, "ENOTDIR")) return null;
        throw error;
      }
      try {
        step();
        const { size } = await call<import("node:fs").Stats>((done) => fs.fstat(fd, done));
        if (maxBytes !== undefined && size > maxBytes) return { tooLarge: size };
        // Files are replaced by rename, never written in place: the open file cannot grow. It
        // is read to its end all the same, in case something else wrote it.
        const chunks: Buffer[] = [];
        let total = 0;
        for (let length = Math.max(size, 1); ; length = 64 * 1024) {
          step();
          const buffer = Buffer.allocUnsafeSlow(length);
          const read = await call<number>((done) => fs.read(fd, buffer, 0, length, null, done));
          if (read === 0) break;
          chunks.push(buffer.subarray(0, read));
          total += read;
          if (maxBytes !== undefined && total > maxBytes) return { tooLarge: total };
        }
        return { bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total) };
      } finally {
        closeQuietly(fd);
      }
    },

    makeFolder,
    syncFolders,
  };
}
