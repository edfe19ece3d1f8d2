import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DirectorySyncs, fsyncDirectory } from "@/lib/store/directory-sync";

/** A folder sync the test finishes by hand, recording when each began. */
function manualSyncs() {
  const started: { folder: string; finish: (error?: Error) => void }[] = [];
  const syncs = new DirectorySyncs(
    (folder) =>
      new Promise<void>((resolve, reject) => {
        started.push({ folder, finish: (error) => (error ? reject(error) : resolve()) });
      }),
  );
  return { syncs, started };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("directory fsyncs are shared by concurrent saves (group commit)", () => {
  it("a caller that arrives while a sync runs waits for the next one, shared by all who arrived meanwhile", async () => {
    const { syncs, started } = manualSyncs();
    const done: string[] = [];
    const first = syncs.sync("/inbox/day").then(() => done.push("first"));
    await tick();
    expect(started).toHaveLength(1);

    // Entries made while the first sync runs: it may have begun before them.
    const late = [1, 2, 3].map((n) => syncs.sync("/inbox/day").then(() => done.push(`late-${n}`)));
    await tick();
    expect(started).toHaveLength(1);

    started[0]?.finish();
    await first;
    await tick();
    expect(done).toEqual(["first"]);
    expect(started).toHaveLength(2); // one more sync, begun after every late entry, for all three

    started[1]?.finish();
    await Promise.all(late);
    expect(done).toEqual(["first", "late-1", "late-2", "late-3"]);
    expect(started).toHaveLength(2);
  });

  it("folders are synced independently, and a failed sync fails only those it was to serve", async () => {
    const { syncs, started } = manualSyncs();
    const day = syncs.sync("/inbox/day");
    const subscribers = syncs.sync("/inbox/subscribers");
    await tick();
    expect(started.map((each) => each.folder)).toEqual(["/inbox/day", "/inbox/subscribers"]);
    const next = syncs.sync("/inbox/day");
    started[0]?.finish(new Error("EIO"));
    await expect(day).rejects.toThrow("EIO");
    await tick();
    started[1]?.finish();
    await expect(subscribers).resolves.toBeUndefined();
    // The caller queued behind the failed sync gets a sync of its own, and its outcome.
    expect(started).toHaveLength(3);
    started[2]?.finish();
    await expect(next).resolves.toBeUndefined();
    // Nothing is left running: the next caller starts a fresh sync at once.
    void syncs.sync("/inbox/day");
    await tick();
    expect(started).toHaveLength(4);
  });

  it("fsyncDirectory flushes a real folder, and fails on a missing one", async () => {
    const folder = await mkdtemp(join(tmpdir(), "intake-dirsync-"));
    await expect(fsyncDirectory(folder)).resolves.toBeUndefined();
    await expect(fsyncDirectory(join(folder, "missing"))).rejects.toMatchObject({ code: "ENOENT" });
    await rm(folder, { recursive: true });
  });
});
