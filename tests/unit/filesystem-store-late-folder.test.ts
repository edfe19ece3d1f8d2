import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FilesystemStore } from "@/lib/store/filesystem";
import { StoreUnavailableError } from "@/lib/store/types";

/** Runs after each `mkdir` the store makes, once it has made its folders. */
const hooks = vi.hoisted(() => ({ afterMkdir: null as (() => void) | null }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...actual,
    mkdir: async (...args: Parameters<typeof actual.mkdir>) => {
      const first = await actual.mkdir(...args);
      hooks.afterMkdir?.();
      return first;
    },
  };
});

let dir: string;
let root: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fs-late-folder-"));
  root = join(dir, "inbox");
});

afterEach(async () => {
  hooks.afterMkdir = null;
  await rm(dir, { recursive: true, force: true });
});

describe("FilesystemStore: folders made by a save whose deadline passed meanwhile", () => {
  it("are flushed by the next save through them", async () => {
    const synced: string[] = [];
    const store = new FilesystemStore(root, {
      async syncDirectory(folder) {
        synced.push(folder);
      },
    });
    await store.put("keep.json", "{}", "application/json"); // the inbox's folder exists
    const deadline = new AbortController();
    hooks.afterMkdir = () => deadline.abort();
    await expect(
      store.put("briefs/2026/11/a.json", "{}", "application/json", { signal: deadline.signal }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    hooks.afterMkdir = null;

    // briefs/2026/11 stands, its entries not yet flushed: the next save into it flushes them.
    synced.length = 0;
    await store.put("briefs/2026/11/b.json", "{}", "application/json");
    expect(synced.sort()).toEqual(
      [root, join(root, "briefs"), join(root, "briefs", "2026"), join(root, "briefs", "2026", "11")].sort(),
    );
  });
});
