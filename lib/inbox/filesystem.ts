import { randomBytes } from "node:crypto";
import { type FileHandle, link, mkdir, open, readFile, rename, rm, unlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { assertObjectPath, type ObjectBody, type ObjectStore, StoreUnavailableError } from "./types";

/** The embedded inbox: objects as files under one directory (`INBOX_DIR`). */
export class FilesystemStore implements ObjectStore {
  readonly driver = "filesystem";
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(path: string, body: ObjectBody): Promise<void> {
    const target = this.locate(path);
    await this.guard(path, async () => {
      const temp = await this.writeTemp(target, body);
      try {
        await rename(temp, target);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    });
  }

  async create(path: string, body: ObjectBody): Promise<boolean> {
    const target = this.locate(path);
    return this.guard(path, async () => {
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

  async get(path: string): Promise<Uint8Array | null> {
    const target = this.locate(path);
    try {
      return await readFile(target);
    } catch (error) {
      if (isCode(error, "ENOENT") || isCode(error, "ENOTDIR")) return null;
      throw new StoreUnavailableError(`Could not read ${path}`, { cause: error });
    }
  }

  async delete(path: string): Promise<void> {
    const target = this.locate(path);
    await this.guard(path, () => rm(target, { force: true }));
  }

  private locate(path: string): string {
    assertObjectPath(path);
    return join(this.root, ...path.split("/"));
  }

  /** Writes the body to a hidden temporary file beside the target and flushes it to disk. */
  private async writeTemp(target: string, body: ObjectBody): Promise<string> {
    await mkdir(dirname(target), { recursive: true });
    const temp = join(dirname(target), `.tmp-${randomBytes(8).toString("hex")}`);
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

  private async guard<T>(path: string, work: () => Promise<T>): Promise<T> {
    try {
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
