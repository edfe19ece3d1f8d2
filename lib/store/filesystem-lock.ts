import { createHash } from "node:crypto";
import { link, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isCode, type Step, TEMP_PREFIX, tempPath } from "./filesystem-paths";

/*
 * The filesystem inbox's conditional writes: an object's version (the hash of its bytes) and the
 * lock a compare-and-swap holds on it, across every process sharing the inbox.
 */

/**
 * The lock a conditional write or delete holds on `<name>`: `.tmp-lock-<name>` beside it, hidden
 * like a temporary file. Created exclusively, so one holder at a time across every process.
 */
const LOCK_PREFIX = `${TEMP_PREFIX}lock-`;

/**
 * A lock older than this was left by a process that stopped while holding it, and is broken. A
 * holder only reads one small file and renames another under it, so this is far beyond any live
 * holder, even one delayed by a slow disk.
 */
const STALE_LOCK_MS = 20_000;

/** Waiting for a lock: the first retry after this, doubling up to `LOCK_WAIT_MAX_MS`, with jitter. */
const LOCK_WAIT_MIN_MS = 1;
const LOCK_WAIT_MAX_MS = 25;

/** The version `getVersioned` reports for these bytes. */
export function versionOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The version of the file at `target` now; `null` when there is none. */
export async function currentVersion(target: string): Promise<string | null> {
  try {
    return versionOf(await readFile(target));
  } catch (error) {
    if (isCode(error, "ENOENT") || isCode(error, "ENOTDIR")) return null;
    throw error;
  }
}

/**
 * Runs `work` holding the exclusive lock on `target`, waiting (by `step`'s deadline) while another
 * writer, in this process or another, holds it. Answers `false` without running `work` when the
 * target's folder does not exist: then the object does not either.
 */
export async function withLock(target: string, step: Step, work: () => Promise<boolean>): Promise<boolean> {
  const lock = join(dirname(target), `${LOCK_PREFIX}${basename(target)}`);
  let held: number | null = null;
  for (let wait = LOCK_WAIT_MIN_MS; held === null; wait = Math.min(wait * 2, LOCK_WAIT_MAX_MS)) {
    step();
    try {
      const handle = await open(lock, "wx", 0o600);
      try {
        held = (await handle.stat()).ino;
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (isCode(error, "ENOENT") || isCode(error, "ENOTDIR")) return false;
      if (!isCode(error, "EEXIST")) throw error;
      await breakIfStale(lock);
      await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait));
    }
  }
  try {
    return await work();
  } finally {
    // Only our own lock: had it been broken as stale, the one there now is another writer's.
    const now = await stat(lock).catch(() => null);
    if (now?.ino === held) await unlink(lock).catch(() => {});
  }
}

/**
 * Removes a lock left by a process that stopped while holding it. It is moved aside first (one
 * breaker wins), and put back should it turn out to be a fresh one taken meanwhile.
 */
async function breakIfStale(lock: string): Promise<void> {
  const seen = await stat(lock).catch(() => null);
  if (!seen || Date.now() - seen.mtimeMs < STALE_LOCK_MS) return;
  const aside = tempPath(lock);
  try {
    await rename(lock, aside);
  } catch {
    return; // another writer broke or released it first
  }
  const moved = await stat(aside).catch(() => null);
  if (moved && moved.ino !== seen.ino) await link(aside, lock).catch(() => {});
  else
    console.warn(
      `[inbox] broke a stale lock on ${lock} (held for ${Math.round((Date.now() - seen.mtimeMs) / 1000)} s)`,
    );
  await unlink(aside).catch(() => {});
}
