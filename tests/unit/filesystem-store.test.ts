import { execFile } from "node:child_process";
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type AttachmentUpload,
  type BriefRecord,
  briefFolder,
  type Folder,
  SAVE_DEADLINES,
  StagedUploadTakenError,
  saveBrief,
} from "@/lib/briefs";
import { FilesystemStore } from "@/lib/store/filesystem";
import {
  type ObjectBody,
  type ObjectInfo,
  type ObjectStore,
  ObjectTooLargeError,
  StoreUnavailableError,
} from "@/lib/store/types";
import { describeStoreContract } from "../support/store-contract";

let dir: string;
let root: string;
let store: ObjectStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fs-store-test-"));
  root = join(dir, "inbox");
  store = new FilesystemStore(root);
});

afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** Every file under `path`, relative to it, sorted. */
async function listFiles(path: string): Promise<string[]> {
  try {
    const entries = await readdir(path, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(path.length + 1))
      .sort();
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return [];
    throw error;
  }
}

async function leftoverTempFiles(): Promise<string[]> {
  return (await listFiles(root)).filter((file) => file.split("/").some((part) => part.startsWith(".tmp-")));
}

const bytes = (text: string) => new TextEncoder().encode(text);

async function collect(iterable: AsyncIterable<ObjectInfo>): Promise<ObjectInfo[]> {
  const found: ObjectInfo[] = [];
  for await (const info of iterable) found.push(info);
  return found;
}

describe("FilesystemStore", () => {
  describeStoreContract(() => store);

  it("list skips the hidden temporary files of writes in progress", async () => {
    await store.put("briefs/x/brief.json", "{}", "application/json");
    await writeFile(join(root, "briefs", "x", ".tmp-0123456789abcdef"), "half a file");
    await writeFile(join(root, ".tmp-fedcba9876543210"), "half a file");
    expect((await collect(store.list(""))).map((info) => info.path)).toEqual(["briefs/x/brief.json"]);
  });

  it("an upload is a hidden file at the root while it is written, renamed on commit, removed on discard", async () => {
    const kept = await store.beginUpload();
    await kept.write(bytes("%PDF-1.7 kept"));
    const dropped = await store.beginUpload();
    await dropped.write(bytes("%PDF-1.7 dropped"));
    expect(await leftoverTempFiles()).toEqual([
      expect.stringMatching(/^\.tmp-upload-[0-9a-f]{16}$/),
      expect.stringMatching(/^\.tmp-upload-[0-9a-f]{16}$/),
    ]);
    await kept.commit("briefs/2026/11/23/REF/attachment.pdf", "application/pdf");
    await dropped.discard();
    expect(await leftoverTempFiles()).toEqual([]);
    expect(await listFiles(root)).toEqual(["briefs/2026/11/23/REF/attachment.pdf"]);
  });

  it("an upload into an inbox whose folder it made flushes that folder's entry too", async () => {
    const synced: string[] = [];
    const fresh = new FilesystemStore(root, {
      async syncDirectory(folder) {
        synced.push(folder);
      },
    });
    const upload = await fresh.beginUpload();
    await upload.write(bytes("%PDF-1.7"));
    await upload.commit("briefs/2026/11/23/REF/attachment.pdf", "application/pdf");
    expect(synced).toContain(dir); // the folder holding the inbox's own entry
    expect(synced).toContain(root);
  });

  describe("a save into a folder another save has just made", () => {
    /** A store whose directory fsyncs are recorded, and held back for `held` until released. */
    function watchedStore(held: string) {
      const synced: string[] = [];
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const watched = new FilesystemStore(root, {
        async syncDirectory(folder) {
          if (folder === held) await released;
          synced.push(folder);
        },
      });
      return { watched, synced, release };
    }

    const settled = (promise: Promise<unknown>) =>
      Promise.race([
        promise.then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), 150)),
      ]);

    it("does not answer before the entries that save made above the folder are flushed", async () => {
      await store.put("keep.json", "{}", "application/json"); // the root exists, as it does after the first save
      const { watched, synced, release } = watchedStore(root);
      // The first save makes briefs/, briefs/2026/ and briefs/2026/11/; flushing the root's new entry is held.
      const first = watched.put("briefs/2026/11/a.json", "{}", "application/json");
      await vi.waitFor(() => expect(synced).toContain(join(root, "briefs", "2026", "11")));
      // The second finds briefs/2026/11/ made: its own file and folder are flushed at once.
      const second = watched.put("briefs/2026/11/b.json", "{}", "application/json");
      expect(await settled(second), "answered while briefs/ was not yet durable in the root").toBe(false);
      release();
      await Promise.all([first, second]);
      expect(synced.filter((folder) => folder === root).length).toBeGreaterThanOrEqual(1);
    });

    it("a save into its own folder does not wait for the flush of another save's new folder beside it", async () => {
      const day = join(root, "briefs", "2026", "11", "23");
      let hold = false;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const synced: string[] = [];
      const watched = new FilesystemStore(root, {
        async syncDirectory(folder) {
          if (hold && folder === day) await released;
          synced.push(folder);
        },
      });
      // One brief's file is in, its folder's entry in the day flushed.
      await watched.put("briefs/2026/11/23/A/attachment.pdf", "%PDF", "application/pdf");
      // Another brief makes its folder in the same day; flushing the day's new entry is held.
      hold = true;
      const other = watched.put("briefs/2026/11/23/B/brief.json", "{}", "application/json");
      await vi.waitFor(() => expect(synced).toContain(join(day, "B")));
      // The first brief's commit point depends on its own folder only.
      const commit = watched.put("briefs/2026/11/23/A/brief.json", "{}", "application/json");
      expect(await settled(commit), "waited for another brief's folder to be flushed").toBe(true);
      expect(await settled(other)).toBe(false);
      release();
      await other;
    });

    it("once those entries are flushed, later saves into the folder sync only their own folder", async () => {
      const { watched, synced, release } = watchedStore("");
      release();
      await watched.put("briefs/2026/11/a.json", "{}", "application/json");
      synced.length = 0;
      await watched.put("briefs/2026/11/b.json", "{}", "application/json");
      expect(synced).toEqual([join(root, "briefs", "2026", "11")]);
    });
  });

  describe("conditional writes hold a lock file beside the object", () => {
    const lockFile = () => join(root, "v", ".tmp-lock-x.json");

    it("is never listed, and is gone after each call, a refused one too", async () => {
      await store.put("v/x.json", "one", "application/json");
      const read = await store.getVersioned("v/x.json");
      expect(await store.putIfVersion("v/x.json", "two", "application/json", read?.version ?? "")).toBe(true);
      expect(await store.putIfVersion("v/x.json", "three", "application/json", read?.version ?? "")).toBe(
        false,
      );
      expect(await store.deleteIfVersion("v/x.json", read?.version ?? "")).toBe(false);
      expect(await listFiles(root)).toEqual(["v/x.json"]);
      expect((await collect(store.list(""))).map((info) => info.path)).toEqual(["v/x.json"]);
    });

    it("waits while another writer holds the lock, and gives up at its deadline without writing", async () => {
      await store.put("v/x.json", "one", "application/json");
      const read = await store.getVersioned("v/x.json");
      await writeFile(lockFile(), ""); // another process in the middle of its write
      const started = Date.now();
      await expect(
        store.putIfVersion("v/x.json", "two", "application/json", read?.version ?? "", {
          signal: AbortSignal.timeout(300),
        }),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(Buffer.from((await store.get("v/x.json"))!).toString()).toBe("one");

      // Once it lets go, the write goes through.
      setTimeout(() => void rm(lockFile()), 100);
      expect(await store.putIfVersion("v/x.json", "two", "application/json", read?.version ?? "")).toBe(true);
      expect(await leftoverTempFiles()).toEqual([]);
    });

    it("breaks a lock left by a process that stopped while holding it (older than 20 s)", async () => {
      vi.spyOn(console, "warn").mockImplementation(() => {});
      await store.put("v/x.json", "one", "application/json");
      const read = await store.getVersioned("v/x.json");
      await writeFile(lockFile(), "");
      const old = new Date(Date.now() - 21_000);
      await utimes(lockFile(), old, old);
      expect(
        await store.putIfVersion("v/x.json", "two", "application/json", read?.version ?? "", {
          signal: AbortSignal.timeout(2_000),
        }),
      ).toBe(true);
      expect(Buffer.from((await store.get("v/x.json"))!).toString()).toBe("two");
      expect(await leftoverTempFiles()).toEqual([]);
      expect(console.warn).toHaveBeenCalledWith(expect.stringContaining("broke a stale lock"));
    });
  });

  it("list of a store that was never written is empty", async () => {
    expect(await collect(new FilesystemStore(join(dir, "never-created")).list(""))).toEqual([]);
  });

  it("an aborted signal stops a call before it writes anything", async () => {
    const signal = AbortSignal.abort();
    await expect(store.put("s/x.txt", "x", "text/plain", { signal })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await expect(store.create("s/y.txt", "x", "text/plain", { signal })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(await listFiles(root)).toEqual([]);
  });

  it.each<[string, ObjectBody, Uint8Array]>([
    ["a string", "héllo ✓\nsecond line", bytes("héllo ✓\nsecond line")],
    ["an empty string", "", new Uint8Array()],
    ["a Uint8Array", new Uint8Array([0, 1, 2, 254, 255]), new Uint8Array([0, 1, 2, 254, 255])],
    ["a Buffer", Buffer.from("buffer body"), bytes("buffer body")],
    ["an array of chunks", [bytes("one,"), bytes("two,"), bytes("three")], bytes("one,two,three")],
    ["an empty array of chunks", [], new Uint8Array()],
    ["chunks with an empty one", [bytes("a"), new Uint8Array(), bytes("b")], bytes("ab")],
    ["a body larger than one read of a stream", Buffer.alloc(200_000, "ab"), Buffer.alloc(200_000, "ab")],
    [
      "3000 chunks (more than one writev can take)",
      Array.from({ length: 3000 }, (_, i) => new Uint8Array([i % 256, (i >> 8) % 256])),
      new Uint8Array(Array.from({ length: 3000 }, (_, i) => [i % 256, (i >> 8) % 256]).flat()),
    ],
  ])("put/get round-trips %s", async (_label, body, expected) => {
    await store.put("a/b/object.bin", body, "application/octet-stream");
    const got = await store.get("a/b/object.bin");
    expect(got).not.toBeNull();
    expect(Buffer.from(got!).equals(Buffer.from(expected))).toBe(true);
    // and the object is the file at the matching place under the root
    expect((await readFile(join(root, "a", "b", "object.bin"))).equals(Buffer.from(expected))).toBe(true);
    expect(await leftoverTempFiles()).toEqual([]);
  });

  it.each([
    ["shorter replaces longer", "a much longer first content", "x"],
    ["longer replaces shorter", "x", "a much longer second content"],
    ["same length", "first", "secon"],
  ])("put replaces an existing object (%s)", async (_label, first, second) => {
    await store.put("k/v.txt", first, "text/plain");
    await store.put("k/v.txt", second, "text/plain");
    expect(Buffer.from((await store.get("k/v.txt"))!).toString()).toBe(second);
    expect(await leftoverTempFiles()).toEqual([]);
  });

  it.each([["missing.json"], ["no/such/folder/x.json"]])(
    "get of a missing object (%s) is null",
    async (path) => {
      expect(await store.get(path)).toBeNull();
    },
  );

  it("get below an object (a file used as a folder) is null", async () => {
    await store.put("a/file", "x", "text/plain");
    expect(await store.get("a/file/below")).toBeNull();
  });

  describe("get of a file whose size says nothing of its bytes (a FIFO)", () => {
    /**
     * Makes a FIFO at `path` in the inbox; `writing` sends it `chunks` once it is opened, a moment
     * apart (so a read finds only what has come so far), then ends it.
     */
    async function fifo(path: string, chunks: string[]) {
      const file = join(root, ...path.split("/"));
      await mkdir(join(file, ".."), { recursive: true });
      await promisify(execFile)("mkfifo", [file]);
      const writing = (async () => {
        const writer = await open(file, "w"); // waits for the store's open
        try {
          for (const chunk of chunks) {
            await writer.write(chunk);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        } finally {
          await writer.close();
        }
      })();
      return { writing };
    }

    it("is read to its end", async () => {
      const { writing } = await fifo("f/all.json", ["first,", "second"]);
      const got = await store.get("f/all.json");
      await writing;
      expect(Buffer.from(got!).toString()).toBe("first,second");
    });

    it("with maxBytes, is refused once more bytes than that have come, by their count", async () => {
      const { writing } = await fifo("f/big.json", ["0123456789", "abcdefghij"]);
      await expect(store.get("f/big.json", { maxBytes: 12 })).rejects.toBeInstanceOf(ObjectTooLargeError);
      await writing.catch(() => {}); // the reader may have gone before the writer finished (EPIPE)
    });
  });

  it("create writes once, then returns false and keeps the first content", async () => {
    expect(await store.create("subs/one.json", '{"n":1}', "application/json")).toBe(true);
    expect(await store.create("subs/one.json", '{"n":2}', "application/json")).toBe(false);
    expect(await store.create("subs/one.json", [bytes("3")], "application/json")).toBe(false);
    expect(Buffer.from((await store.get("subs/one.json"))!).toString()).toBe('{"n":1}');
    expect(await leftoverTempFiles()).toEqual([]);
  });

  it("create does not replace an object written by put", async () => {
    await store.put("p.txt", "put", "text/plain");
    expect(await store.create("p.txt", "create", "text/plain")).toBe(false);
    expect(Buffer.from((await store.get("p.txt"))!).toString()).toBe("put");
  });

  it.each([[2], [20]])(
    "%i concurrent creates of one path: exactly one wins, and its body is stored",
    async (n) => {
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) => store.create("race/x.json", `body-${i}`, "application/json")),
      );
      const winners = results.flatMap((won, i) => (won ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(Buffer.from((await store.get("race/x.json"))!).toString()).toBe(`body-${winners[0]}`);
      expect(await leftoverTempFiles()).toEqual([]);
      expect(await listFiles(root)).toEqual(["race/x.json"]);
    },
  );

  it("delete removes an object, and deleting a missing one is fine", async () => {
    await store.put("d/x.txt", "x", "text/plain");
    await store.delete("d/x.txt");
    expect(await store.get("d/x.txt")).toBeNull();
    await expect(store.delete("d/x.txt")).resolves.toBeUndefined();
    await expect(store.delete("never/was.txt")).resolves.toBeUndefined();
  });

  it("a delete leaves no empty folder behind, up to the inbox's root, and keeps folders still in use", async () => {
    await store.put("briefs/2026/11/22/A/brief.json", "{}", "application/json");
    await store.put("briefs/2026/11/22/A/delivery.json", "{}", "application/json");
    await store.put("briefs/2026/11/23/B/brief.json", "{}", "application/json");
    await store.put("deliveries/due/A.webhook.json", "{}", "application/json");
    await store.delete("briefs/2026/11/22/A/brief.json");
    expect(await readdir(join(root, "briefs/2026/11/22/A"))).toEqual(["delivery.json"]);
    await store.delete("briefs/2026/11/22/A/delivery.json");
    expect(await readdir(join(root, "briefs/2026/11"))).toEqual(["23"]);
    const due = await store.getVersioned("deliveries/due/A.webhook.json");
    expect(await store.deleteIfVersion("deliveries/due/A.webhook.json", due!.version)).toBe(true);
    expect((await readdir(root)).sort()).toEqual(["briefs"]);
    await store.delete("briefs/2026/11/23/B/brief.json");
    expect(await readdir(root)).toEqual([]);
  });

  it("saves racing deletes that empty their folder all land: a pruned folder is made again", async () => {
    for (let round = 0; round < 30; round++) {
      const folder = `briefs/2026/11/22/R${round}`;
      await store.put(`${folder}/old.json`, "{}", "application/json");
      await Promise.all([
        store.delete(`${folder}/old.json`),
        store.put(`${folder}/a.json`, "a", "application/json"),
        store.create(`${folder}/b.json`, "b", "application/json"),
        store.putAll([{ path: `${folder}/c.json`, body: "c", contentType: "application/json" }]),
      ]);
      expect((await readdir(join(root, ...folder.split("/")))).sort()).toEqual([
        "a.json",
        "b.json",
        "c.json",
      ]);
    }
  });

  describe.each([
    ["../x"],
    ["a/../../x"],
    ["a//b"],
    ["/abs"],
    ["a/b/"],
    ["./a"],
    [""],
    ["a\\..\\b"],
    ["a/\u0000b"],
    ["a/b\nc"],
    ["x".repeat(513)],
  ])("invalid path %j", (path) => {
    it.each<[string, (store: ObjectStore) => Promise<unknown>]>([
      ["put", (s) => s.put(path, "x", "text/plain")],
      ["create", (s) => s.create(path, "x", "text/plain")],
      ["get", (s) => s.get(path)],
      ["delete", (s) => s.delete(path)],
    ])("%s throws and writes nothing", async (_operation, run) => {
      await expect(run(store)).rejects.toThrow(/Invalid object path/);
      expect(await listFiles(dir)).toEqual([]);
    });
  });

  describe("a root below a regular file", () => {
    let broken: ObjectStore;

    beforeEach(async () => {
      const file = join(dir, "not-a-folder");
      await writeFile(file, "I am a file");
      broken = new FilesystemStore(join(file, "inbox"));
    });

    it.each<[string, (store: ObjectStore) => Promise<unknown>]>([
      ["put of a string", (s) => s.put("briefs/x/brief.json", "{}", "application/json")],
      ["put of chunks", (s) => s.put("briefs/x/attachment.pdf", [bytes("%PDF")], "application/pdf")],
      ["create", (s) => s.create("newsletter/subscribers/a.json", "{}", "application/json")],
    ])("%s throws StoreUnavailableError", async (_label, run) => {
      await expect(run(broken)).rejects.toBeInstanceOf(StoreUnavailableError);
    });

    it("get is null", async () => {
      expect(await broken.get("briefs/x/brief.json")).toBeNull();
    });
  });
});

const RECEIVED_AT = "2025-12-31T23:59:59.999Z";
const REFERENCE = "K7QM-3XD9-PTWA-84HC";

function record(overrides: Partial<BriefRecord> = {}): BriefRecord {
  return {
    reference: REFERENCE,
    receivedAt: RECEIVED_AT,
    name: "Ann Lee",
    email: "ann@example.com",
    company: null,
    role: null,
    projectType: "ai-system",
    budget: "undecided",
    timeline: "exploring",
    description: "We would like to explore an AI system for our support team.",
    consent: true,
    attachment: null,
    verification: "off",
    attribution: null,
    client: { ipHash: "abc123", userAgent: "test", origin: "https://studio.example" },
    ...overrides,
  };
}

function upload(): AttachmentUpload {
  const chunks = [bytes("%PDF-1.7\n"), bytes("body of the file\n"), bytes("%%EOF\n")];
  return {
    chunks,
    record: {
      filename: "attachment.pdf",
      originalName: "brief.pdf",
      contentType: "application/pdf",
      size: chunks.reduce((sum, chunk) => sum + chunk.length, 0),
      sha256: "0".repeat(64),
    },
  };
}

/** Delegates to a real store, records the writes, and fails the operations `fail` picks. */
function wrap(
  inner: ObjectStore,
  fail: {
    put?: (path: string) => boolean;
    copy?: (to: string) => boolean;
    delete?: (path: string) => boolean;
  } = {},
) {
  const calls: string[] = [];
  const wrapped: ObjectStore = {
    driver: inner.driver,
    async put(path, body, contentType) {
      calls.push(`put ${path}`);
      if (fail.put?.(path)) throw new StoreUnavailableError(`simulated failure writing ${path}`);
      return inner.put(path, body, contentType);
    },
    async create(path, body, contentType) {
      calls.push(`create ${path}`);
      return inner.create(path, body, contentType);
    },
    get: (path) => inner.get(path),
    getStream: (path) => inner.getStream(path),
    beginUpload: () => inner.beginUpload(),
    removeAbandonedUploads: (before) => inner.removeAbandonedUploads(before),
    async putAll(entries) {
      for (const entry of entries) await wrapped.put(entry.path, entry.body, entry.contentType);
    },
    getVersioned: (path) => inner.getVersioned(path),
    putIfVersion: (path, body, contentType, version) => inner.putIfVersion(path, body, contentType, version),
    deleteIfVersion: (path, version) => inner.deleteIfVersion(path, version),
    async copy(from, to, contentType) {
      calls.push(`copy ${from} ${to}`);
      if (fail.copy?.(to)) throw new StoreUnavailableError(`simulated failure copying to ${to}`);
      return inner.copy(from, to, contentType);
    },
    async delete(path) {
      calls.push(`delete ${path}`);
      if (fail.delete?.(path)) throw new StoreUnavailableError(`simulated failure deleting ${path}`);
      return inner.delete(path);
    },
    list: (prefix) => inner.list(prefix),
  };
  return { store: wrapped, calls };
}

describe("briefFolder", () => {
  const originalTZ = process.env.TZ;
  afterEach(() => {
    if (originalTZ === undefined) delete process.env.TZ;
    else process.env.TZ = originalTZ;
  });

  it.each<[Folder, string, string, string]>([
    ["briefs", "2026-03-04T10:00:00.000Z", "Pacific/Kiritimati", "briefs/2026/03/04/REF"],
    ["briefs", "2025-12-31T23:59:59.999Z", "Pacific/Kiritimati", "briefs/2025/12/31/REF"],
    ["briefs", "2026-01-01T00:00:00.000Z", "America/Los_Angeles", "briefs/2026/01/01/REF"],
    ["spam", "2026-11-22T08:15:00.000Z", "UTC", "spam/2026/11/22/REF"],
    ["briefs", "2026-02-09T23:30:00.000Z", "Asia/Tokyo", "briefs/2026/02/09/REF"],
  ])("%s on %s (local zone %s) -> %s", (folder, iso, zone, expected) => {
    process.env.TZ = zone;
    expect(briefFolder(folder, "REF", new Date(iso))).toBe(expected);
  });
});

describe("saveBrief", () => {
  const base = `briefs/2025/12/31/${REFERENCE}`;

  it("writes the attachment first, then brief.json, under briefs/YYYY/MM/DD/<ref>/", async () => {
    const { store: recording, calls } = wrap(store);
    const brief = record({ attachment: upload().record });
    const folder = await saveBrief(recording, "briefs", brief, upload());

    expect(folder).toBe(base);
    expect(calls).toEqual([`put ${base}/attachment.pdf`, `put ${base}/brief.json`]);
    expect(await listFiles(root)).toEqual([`${base}/attachment.pdf`, `${base}/brief.json`]);
    expect(JSON.parse(Buffer.from((await store.get(`${base}/brief.json`))!).toString())).toEqual(brief);
    expect(Buffer.from((await store.get(`${base}/attachment.pdf`))!).toString()).toBe(
      "%PDF-1.7\nbody of the file\n%%EOF\n",
    );
  });

  it("without an attachment writes brief.json only", async () => {
    const { store: recording, calls } = wrap(store);
    await saveBrief(recording, "briefs", record(), null);
    expect(calls).toEqual([`put ${base}/brief.json`]);
    expect(await listFiles(root)).toEqual([`${base}/brief.json`]);
  });

  it("puts a honeypot catch under spam/", async () => {
    const folder = await saveBrief(store, "spam", record(), upload());
    expect(folder).toBe(`spam/2025/12/31/${REFERENCE}`);
    expect(await listFiles(root)).toEqual([
      `spam/2025/12/31/${REFERENCE}/attachment.pdf`,
      `spam/2025/12/31/${REFERENCE}/brief.json`,
    ]);
  });

  it("when brief.json cannot be written, removes it (commit point first) and the attachment, and rethrows", async () => {
    const { store: failing, calls } = wrap(store, { put: (path) => path.endsWith("brief.json") });
    const error = await saveBrief(failing, "briefs", record({ attachment: upload().record }), upload()).then(
      () => null,
      (reason: unknown) => reason,
    );

    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain("brief.json");
    expect(calls).toEqual([
      `put ${base}/attachment.pdf`,
      `put ${base}/brief.json`,
      `delete ${base}/brief.json`,
      `delete ${base}/attachment.pdf`,
    ]);
    expect(await store.get(`${base}/attachment.pdf`)).toBeNull();
    expect(await store.get(`${base}/brief.json`)).toBeNull();
    expect(await listFiles(root)).toEqual([]);
  });

  it("rethrows the write error, not the cleanup error, when the attachment cannot be deleted either", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const { store: failing } = wrap(store, {
      put: (path) => path.endsWith("brief.json"),
      delete: () => true,
    });
    await expect(saveBrief(failing, "briefs", record(), upload())).rejects.toThrow(/writing .*brief\.json/);
    expect(log).toHaveBeenCalled();
    expect(await store.get(`${base}/brief.json`)).toBeNull();
  });

  it("when the attachment cannot be written, brief.json is never written and the attachment is removed", async () => {
    const { store: failing, calls } = wrap(store, { put: (path) => path.endsWith("attachment.pdf") });
    await expect(saveBrief(failing, "briefs", record(), upload())).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(calls).toEqual([`put ${base}/attachment.pdf`, `delete ${base}/attachment.pdf`]);
    expect(await listFiles(root)).toEqual([]);
  });

  describe("an attachment uploaded ahead of the form (staged)", () => {
    const STAGED = "staging/0123456789abcdef0123456789abcdef/brief.pdf";
    const CLAIM = "staging/0123456789abcdef0123456789abcdef.claim";

    async function staged(): Promise<AttachmentUpload> {
      const file = upload();
      await store.put(STAGED, file.chunks ?? [], "application/pdf");
      return { ...file, staged: STAGED };
    }

    it("is claimed for the brief, copied into its folder, brief.json follows, and only then is the staged object deleted", async () => {
      const attachment = await staged();
      const { store: recording, calls } = wrap(store);
      await saveBrief(recording, "briefs", record({ attachment: attachment.record }), attachment);
      expect(calls).toEqual([
        `create ${CLAIM}`,
        `copy ${STAGED} ${base}/attachment.pdf`,
        `put ${base}/brief.json`,
        `delete ${STAGED}`,
      ]);
      // The claim stays, so no later brief can take the upload again; gc removes it with the rest.
      expect(await listFiles(root)).toEqual([`${base}/attachment.pdf`, `${base}/brief.json`, CLAIM]);
      expect(Buffer.from((await store.get(CLAIM))!).toString()).toBe("K7QM-3XD9-PTWA-84HC\n");
      expect(Buffer.from((await store.get(`${base}/attachment.pdf`))!).toString()).toBe(
        "%PDF-1.7\nbody of the file\n%%EOF\n",
      );
    });

    it("when brief.json fails, the copy is removed and the staged object is kept", async () => {
      const attachment = await staged();
      const { store: failing, calls } = wrap(store, { put: (path) => path.endsWith("brief.json") });
      await expect(saveBrief(failing, "briefs", record(), attachment)).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      expect(calls).toEqual([
        `create ${CLAIM}`,
        `copy ${STAGED} ${base}/attachment.pdf`,
        `put ${base}/brief.json`,
        `delete ${base}/brief.json`,
        `delete ${base}/attachment.pdf`,
        `delete ${CLAIM}`,
      ]);
      // The claim is released: the visitor may send the form again with the same upload.
      expect(await listFiles(root)).toEqual([STAGED]);
    });

    it("when the copy fails, brief.json is never written and the staged object is kept", async () => {
      const attachment = await staged();
      const { store: failing, calls } = wrap(store, { copy: () => true });
      await expect(saveBrief(failing, "briefs", record(), attachment)).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      expect(calls).toEqual([
        `create ${CLAIM}`,
        `copy ${STAGED} ${base}/attachment.pdf`,
        `delete ${base}/attachment.pdf`,
        `delete ${CLAIM}`,
      ]);
      expect(await listFiles(root)).toEqual([STAGED]);
    });

    it("a staged object that cannot be deleted after the commit is logged; the brief stands", async () => {
      const log = vi.spyOn(console, "error").mockImplementation(() => {});
      const attachment = await staged();
      const { store: failing } = wrap(store, { delete: (path) => path === STAGED });
      await expect(saveBrief(failing, "briefs", record(), attachment)).resolves.toBe(base);
      expect(log).toHaveBeenCalledWith(
        expect.stringContaining(`could not remove ${STAGED}`),
        expect.anything(),
      );
      expect(await listFiles(root)).toEqual([`${base}/attachment.pdf`, `${base}/brief.json`, CLAIM, STAGED]);
    });

    it("of two briefs claiming one upload, the second is refused and writes nothing", async () => {
      const attachment = await staged();
      await saveBrief(store, "briefs", record({ attachment: attachment.record }), attachment);
      const second = record({ reference: "W4XE-9QTR-HJ2K-M7PC", attachment: attachment.record });
      const { store: recording, calls } = wrap(store);
      await expect(saveBrief(recording, "briefs", second, attachment)).rejects.toBeInstanceOf(
        StagedUploadTakenError,
      );
      expect(calls).toEqual([`create ${CLAIM}`]);
      expect(await listFiles(root)).toEqual([`${base}/attachment.pdf`, `${base}/brief.json`, CLAIM]);
    });

    it("recognises its own claim when the create's answer was lost and a retry met it", async () => {
      const attachment = await staged();
      await store.create(CLAIM, "K7QM-3XD9-PTWA-84HC\n", "text/plain");
      await expect(
        saveBrief(store, "briefs", record({ attachment: attachment.record }), attachment),
      ).resolves.toBe(base);
    });
  });

  describe("deadlines", () => {
    /** A store whose writes (and, optionally, deletes) hang until the caller's signal gives up. */
    function hanging(hangDeletes: boolean) {
      const calls: string[] = [];
      const waitForAbort = (path: string, signal: AbortSignal | undefined) =>
        new Promise<never>((_, reject) => {
          const giveUp = () =>
            reject(new StoreUnavailableError(`gave up on ${path}`, { cause: signal?.reason }));
          if (signal?.aborted) giveUp();
          signal?.addEventListener("abort", giveUp);
        });
      const hung: ObjectStore = {
        driver: "filesystem",
        async put(path, body, contentType, options) {
          calls.push(`put ${path}`);
          if (path.endsWith("brief.json")) return waitForAbort(path, options?.signal);
          return store.put(path, body, contentType);
        },
        create: () => Promise.reject(new Error("not used")),
        copy: () => Promise.reject(new Error("not used")),
        get: (path) => store.get(path),
        getStream: () => Promise.reject(new Error("not used")),
        beginUpload: () => store.beginUpload(),
        removeAbandonedUploads: () => Promise.reject(new Error("not used")),
        async putAll(entries, options) {
          for (const entry of entries) await hung.put(entry.path, entry.body, entry.contentType, options);
        },
        getVersioned: () => Promise.reject(new Error("not used")),
        putIfVersion: () => Promise.reject(new Error("not used")),
        deleteIfVersion: () => Promise.reject(new Error("not used")),
        async delete(path, options) {
          calls.push(`delete ${path}`);
          if (hangDeletes) return waitForAbort(path, options?.signal);
          return store.delete(path);
        },
        list: (prefix) => store.list(prefix),
      };
      return { store: hung, calls };
    }

    it("a write that hangs fails once the save deadline passes, and what it wrote is removed", async () => {
      vi.spyOn(console, "error").mockImplementation(() => {});
      const { store: hung, calls } = hanging(false);
      const started = Date.now();
      await expect(
        saveBrief(hung, "briefs", record(), upload(), { saveMs: 300, cleanupMs: 300 }),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(280);
      expect(elapsed).toBeLessThan(1_000);
      expect(calls).toEqual([
        `put ${base}/attachment.pdf`,
        `put ${base}/brief.json`,
        `delete ${base}/brief.json`,
        `delete ${base}/attachment.pdf`,
      ]);
      expect(await listFiles(root)).toEqual([]);
    });

    it("cleanup that hangs too is bounded by its own deadline, and never removes the attachment first", async () => {
      const log = vi.spyOn(console, "error").mockImplementation(() => {});
      const { store: hung, calls } = hanging(true);
      const started = Date.now();
      await expect(
        saveBrief(hung, "briefs", record(), upload(), { saveMs: 300, cleanupMs: 300 }),
      ).rejects.toThrow(/gave up on .*brief\.json/);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(580);
      expect(elapsed).toBeLessThan(1_300);
      // brief.json could not be removed: the attachment it may point at stays (for now).
      expect(calls).toEqual([
        `put ${base}/attachment.pdf`,
        `put ${base}/brief.json`,
        `delete ${base}/brief.json`,
      ]);
      expect(log).toHaveBeenCalledTimes(1);
      expect(log).toHaveBeenCalledWith(expect.stringContaining(`${base}/brief.json`), expect.anything());
    });

    it("the defaults answer a dead store within the contract's 10 s, with room to spare", () => {
      expect(SAVE_DEADLINES.saveMs + SAVE_DEADLINES.cleanupMs).toBeLessThanOrEqual(8_000);
    });
  });

  it("against an unwritable root, fails with StoreUnavailableError and leaves nothing", async () => {
    const file = join(dir, "plain-file");
    await writeFile(file, "x");
    const broken = new FilesystemStore(join(file, "inbox"));
    await expect(saveBrief(broken, "briefs", record(), upload())).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect((await stat(file)).isFile()).toBe(true);
  });
});
