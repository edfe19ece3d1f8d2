import { randomBytes } from "node:crypto";
import {
  copyFile,
  type FileHandle,
  link,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  unlink,
} from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
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

/** Files being written are hidden under this prefix until they are renamed into place. */
const TEMP_PREFIX = ".tmp-";

/** The embedded inbox: objects as files under one directory (`INBOX_DIR`). */
export class FilesystemStore implements ObjectStore {
  readonly driver = "filesystem";
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(path: string, body: ObjectBody, _contentType: string, options: StoreCallOptions = {}) {
    const target = this.locate(path);
    await this.guard(path, options, async () => {
      const temp = await this.writeTemp(target, body);
      try {
        await rename(temp, target);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    });
  }

  async create(path: string, body: ObjectBody, _contentType: string, options: StoreCallOptions = {}) {
    const target = this.locate(path);
    return this.guard(path, options, async () => {
      const temp = await this.writeTemp(target, body);
      try {
        // link() refuses an existing target, so exactly one of concurrent creators wins.
        await link(temp, target);
        return true;
      } catch (error) {
        if (isCode(error, "EEXIST")) return false;
        throw error;
      } finally {
        await unlink(temp).catch(() => {});
      }
    });
  }

  async get(path: string, options: GetOptions = {}): Promise<Uint8Array | null> {
    const target = this.locate(path);
    const { maxBytes } = options;
    try {
      options.signal?.throwIfAborted();
      if (maxBytes === undefined) return await readFile(target);
      const file = await open(target, "r");
      try {
        const { size } = await file.stat();
        if (size > maxBytes) throw new ObjectTooLargeError(path, size, maxBytes);
        // Files are replaced by rename, never written in place: the open file cannot grow.
        return await file.readFile();
      } finally {
        await file.close();
      }
    } catch (error) {
      if (error instanceof ObjectTooLargeError) throw error;
      if (isCode(error, "ENOENT") || isCode(error, "ENOTDIR")) return null;
      throw new StoreUnavailableError(`Could not read ${path}`, { cause: error });
    }
  }

  async copy(from: string, to: string, _contentType: string, options: StoreCallOptions = {}) {
    const source = this.locate(from);
    const target = this.locate(to);
    await this.guard(to, options, async () => {
      await mkdir(dirname(target), { recursive: true });
      const temp = join(dirname(target), `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
      try {
        await copyFile(source, temp);
        const file = await open(temp, "r+");
        await file.sync().finally(() => file.close());
        await rename(temp, target);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    });
  }

  async delete(path: string, options: StoreCallOptions = {}): Promise<void> {
    const target = this.locate(path);
    await this.guard(path, options, async () => {
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
    let entries;
    try {
      options.signal?.throwIfAborted();
      entries = await readdir(folder === "" ? this.root : join(this.root, ...folder.split("/")), {
        withFileTypes: true,
      });
    } catch (error) {
      if (isCode(error, "ENOENT") || isCode(error, "ENOTDIR")) return;
      throw new StoreUnavailableError(`Could not list ${folder || "the inbox"}`, { cause: error });
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
        const info = await stat(join(this.root, ...path.split("/"))).catch((error: unknown) => {
          if (isCode(error, "ENOENT")) return null; // removed while listing
          throw new StoreUnavailableError(`Could not read ${path}`, { cause: error });
        });
        if (info) yield { path, size: info.size, uploadedAt: info.mtime };
      }
    }
  }

  private locate(path: string): string {
    assertObjectPath(path);
    return join(this.root, ...path.split("/"));
  }

  /** Writes the body to a hidden temporary file beside the target and flushes it to disk. */
  private async writeTemp(target: string, body: ObjectBody): Promise<string> {
    await mkdir(dirname(target), { recursive: true });
    const temp = join(dirname(target), `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
    const file = await open(temp, "wx", 0o600);
    try {
      await writeAll(file, typeof body === "string" ? [Buffer.from(body, "utf8")] : body);
      await file.sync();
    } catch (error) {
      await file.close();
      await rm(temp, { force: true });
      throw error;
    }
    await file.close();
    return temp;
  }

  private async guard<T>(path: string, options: StoreCallOptions, work: () => Promise<T>): Promise<T> {
    try {
      options.signal?.throwIfAborted();
      return await work();
    } catch (error) {
      throw new StoreUnavailableError(`Could not write ${path}`, { cause: error });
    }
  }
}

/**
 * Writes every byte of `body`. A vectored write can be cut short without an error (the disk filled
 * up, a file-size limit or quota was reached), so it goes on from where it stopped: the next write
 * then fails with the system's own error instead of a truncated file passing as whole.
 */
async function writeAll(file: FileHandle, body: Uint8Array | readonly Uint8Array[]): Promise<void> {
  let pending = (body instanceof Uint8Array ? [body] : [...body]).filter((chunk) => chunk.byteLength > 0);
  while (pending.length > 0) {
    const { bytesWritten } = await file.writev(pending);
    if (bytesWritten <= 0) throw new Error("The write made no progress.");
    pending = dropBytes(pending, bytesWritten);
  }
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

function isCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
