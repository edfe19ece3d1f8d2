import { randomBytes } from "node:crypto";
import { type FileHandle, lstat, open, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { AbandonedUpload } from "./types";

/**
 * A temporary file that an upload's bytes are written to as they arrive (`ObjectUpload`): created
 * exclusively and readable only by this user, written through to the end of each chunk, read back
 * at any position, and removed on `remove` (once; later calls do nothing).
 */
export class SpoolFile {
  size = 0;
  private closed = false;
  private removed = false;

  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
  ) {}

  /** A new file named `<prefix><random>` in `folder`. */
  static async create(folder: string, prefix: string): Promise<SpoolFile> {
    const path = join(folder, `${prefix}${randomBytes(8).toString("hex")}`);
    return new SpoolFile(path, await open(path, "wx+", 0o600));
  }

  /**
   * Appends `chunk` whole. A write can be cut short without an error (a full disk, a file-size
   * limit), so it goes on from where it stopped: the next write then fails with the system's error.
   */
  async write(chunk: Uint8Array): Promise<void> {
    let rest = chunk;
    while (rest.byteLength > 0) {
      const { bytesWritten } = await this.file.write(rest, 0, rest.byteLength, this.size);
      if (bytesWritten <= 0) throw new Error("The write made no progress.");
      this.size += bytesWritten;
      rest = rest.subarray(bytesWritten);
    }
  }

  async read(target: Uint8Array, position: number): Promise<number> {
    if (position >= this.size) return 0;
    const length = Math.min(target.byteLength, this.size - position);
    const { bytesRead } = await this.file.read(target, 0, length, position);
    return bytesRead;
  }

  /** Flushes the bytes to disk (before the file is renamed into place). */
  async sync(): Promise<void> {
    await this.file.sync();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.file.close();
  }

  /** Closes and deletes the file; after a rename it only closes (the name is no longer ours). */
  async remove({ renamed = false } = {}): Promise<void> {
    await this.close().catch(() => {});
    if (this.removed) return;
    this.removed = true;
    if (!renamed) await rm(this.path, { force: true });
  }
}

/**
 * How long an upload's spool file may go unwritten before it counts as abandoned: left by a
 * process that stopped while receiving it. A live upload is far younger: Node's server gives a
 * request 5 minutes to arrive whole (`requestTimeout`), and each chunk is written as it arrives.
 */
export const ABANDONED_UPLOAD_AGE_MS = 60 * 60_000;

/**
 * Removes the files in `folder` named `<prefix>...` that were last written before `before` (with
 * `dryRun`, only finds them), and answers them, each `path` given by `name(fileName)`. A file that
 * vanishes meanwhile (its upload finished) is skipped; `folder` missing means none.
 */
export async function removeAbandonedSpools(
  folder: string,
  prefix: string,
  before: Date,
  { dryRun = false, name = (fileName: string) => join(folder, fileName) } = {},
): Promise<AbandonedUpload[]> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((fileName) => fileName.startsWith(prefix));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const abandoned: AbandonedUpload[] = [];
  for (const fileName of names) {
    const path = join(folder, fileName);
    const stats = await lstat(path).catch(() => null);
    if (!stats?.isFile() || stats.mtime >= before) continue;
    if (!dryRun) await rm(path, { force: true });
    abandoned.push({ path: name(fileName), size: stats.size, lastWritten: stats.mtime });
  }
  return abandoned;
}
