import { randomBytes } from "node:crypto";
import { link, mkdir, open, readFile, rename, rm, unlink } from "node:fs/promises";
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
      if (typeof body === "string") await file.writeFile(body, "utf8");
      else if (body instanceof Uint8Array) await file.writeFile(body);
      else if (body.length > 0) await file.writev(body as Uint8Array[]);
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

function isCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
