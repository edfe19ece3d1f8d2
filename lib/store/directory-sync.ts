import { open } from "node:fs/promises";

/**
 * Group commit for directory entries. An fsync of a directory makes durable every entry made in it
 * before the fsync began, so concurrent saves into one folder (the day's `briefs/YYYY/MM/DD`,
 * `newsletter/subscribers`) can share one: a caller whose entry is made while a sync of that
 * folder is already running waits for the next one, which starts once the running one ends and
 * serves everyone who asked meanwhile. Under load this turns one directory fsync per save into one
 * per folder per disk round trip, and never lets a caller return on a sync that began before its
 * entry was made.
 *
 * One per store (the filesystem inbox's), shared by its requests like a connection pool is.
 */
export class DirectorySyncs {
  private readonly folders = new Map<string, FolderSync>();

  /** `syncOne` flushes one folder's entries; tests give a stand-in to watch or hold one back. */
  constructor(private readonly syncOne: (folder: string) => Promise<void> = fsyncDirectory) {}

  /** Resolves once an fsync of `folder` that began after this call has completed. */
  sync(folder: string): Promise<void> {
    const current = this.folders.get(folder);
    if (current === undefined) return this.start(folder);
    // The running sync may have begun before the caller's entry was made: join the next one.
    current.next ??= current.running.then(
      () => this.start(folder),
      () => this.start(folder),
    );
    return current.next;
  }

  private start(folder: string): Promise<void> {
    const state: FolderSync = { running: this.syncOne(folder), next: null };
    this.folders.set(folder, state);
    const done = () => {
      if (this.folders.get(folder) === state) this.folders.delete(folder);
    };
    state.running.then(done, done);
    return state.running;
  }
}

interface FolderSync {
  running: Promise<void>;
  /** The sync that starts when `running` ends, shared by every caller that arrived meanwhile. */
  next: Promise<void> | null;
}

/** Opens, fsyncs and closes a directory; a failed fsync is the error heard, not the close after it. */
export async function fsyncDirectory(folder: string): Promise<void> {
  const directory = await open(folder, "r");
  try {
    await directory.sync();
  } catch (error) {
    await directory.close().catch(() => {});
    throw error;
  }
  await directory.close();
}
