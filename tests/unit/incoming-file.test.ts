import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IncomingFile } from "@/lib/contact/attachment";
import { withinDeadline } from "@/lib/store/deadline";
import { FilesystemStore } from "@/lib/store/filesystem";
import { type ObjectStore, type StoreCallOptions, StoreUnavailableError } from "@/lib/store/types";

/**
 * A file streamed into the inbox (`IncomingFile`, `readMultipart`'s sink) against a real
 * `FilesystemStore` whose upload's writes can be held back: each write is bounded by 2 s of its
 * own however long the whole upload takes, and the bound costs nothing per chunk that outlives
 * the chunk.
 */

const CALL_MS = 2_000; // UPLOAD_CALL_MS in lib/contact/attachment.ts

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "incoming-file-test-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Held {
  store: ObjectStore;
  /** The options each call of the upload was given, in order (`beginUpload` first). */
  calls: StoreCallOptions[];
  /** How long the next writes take: a number of ms, or `"hang"` for never. */
  delay: number | "hang";
}

/** A real filesystem store whose upload writes first wait `held.delay`, under the caller's deadline. */
function heldStore(root: string): Held {
  const inner = new FilesystemStore(root);
  const held: Held = { store: inner, calls: [], delay: 0 };
  const store: ObjectStore = Object.create(inner) as ObjectStore;
  store.beginUpload = async (options = {}) => {
    held.calls.push(options);
    const upload = await inner.beginUpload(options);
    return {
      get size() {
        return upload.size;
      },
      read: (target, position) => upload.read(target, position),
      commit: (path, contentType, commitOptions) => upload.commit(path, contentType, commitOptions),
      discard: () => upload.discard(),
      write: (chunk, writeOptions = {}) => {
        held.calls.push(writeOptions);
        const { delay } = held;
        const waited =
          delay === "hang"
            ? new Promise<void>(() => {})
            : new Promise((resolve) => setTimeout(resolve, delay));
        const work = waited.then(() => upload.write(chunk));
        return withinDeadline(work, writeOptions, "write an upload");
      },
    };
  };
  held.store = store;
  return held;
}

const chunk = (size = 64 * 1024) => new Uint8Array(size).fill(0x41);

describe("a file streamed to the inbox", () => {
  it("shares one deadline signal among all of its writes, however many chunks it has", async () => {
    // A signal (and its timer) per chunk, each alive for 2 s, is megabytes of heap under
    // concurrent 10 MiB uploads (docs/performance.md, issue 17).
    const held = heldStore(dir);
    const file = new IncomingFile(held.store);
    for (let i = 0; i < 100; i++) await file.write(chunk());
    const signals = new Set(held.calls.map((options) => options.signal));
    expect(held.calls).toHaveLength(101);
    expect(signals.size).toBe(1);
    expect([...signals][0]?.aborted).toBe(false);
    await file.discard();
  });

  it("gives each write 2 s of its own, and a pause between writes costs nothing", async () => {
    const held = heldStore(dir);
    const file = new IncomingFile(held.store);
    await file.write(chunk());
    // The client pauses longer than a call's bound: the next write is not failed for it.
    await new Promise((resolve) => setTimeout(resolve, CALL_MS + 300));
    held.delay = 700;
    const started = Date.now();
    for (let i = 0; i < 4; i++) await file.write(chunk()); // 2.8 s in all, 0.7 s each
    expect(Date.now() - started).toBeGreaterThan(CALL_MS);
    const described = await file.describe("brief.txt");
    expect(typeof described).not.toBe("string");
    if (typeof described !== "string") expect(described.record.size).toBe(5 * 64 * 1024);
    await file.discard();
  }, 15_000);

  it("fails a write that hangs within its 2 s, and every write after it at once", async () => {
    const held = heldStore(dir);
    const file = new IncomingFile(held.store);
    await file.write(chunk());
    held.delay = "hang";
    const started = Date.now();
    await expect(file.write(chunk())).rejects.toBeInstanceOf(StoreUnavailableError);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(CALL_MS - 50);
    expect(elapsed).toBeLessThan(CALL_MS + 1_000);
    held.delay = 0;
    const again = Date.now();
    await expect(file.write(chunk())).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - again).toBeLessThan(500);
  }, 15_000);

  it("removes its temporary file when discarded", async () => {
    const held = heldStore(dir);
    const file = new IncomingFile(held.store);
    await file.write(chunk());
    expect((await readdir(dir)).filter((name) => name.startsWith(".tmp-upload-"))).toHaveLength(1);
    await file.discard();
    expect(await readdir(dir)).toEqual([]);
  });
});
