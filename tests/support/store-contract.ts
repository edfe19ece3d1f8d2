import { describe, expect, it } from "vitest";
import { updateObject } from "@/lib/store/conditional";
import {
  type ObjectInfo,
  type ObjectStore,
  ObjectTooLargeError,
  StoreUnavailableError,
} from "@/lib/store/types";

/**
 * What every ObjectStore driver must do, run against each real driver (the filesystem under a
 * temporary folder, Vercel Blob through its SDK against the stand-in). `current()` is the store of
 * the running test, fresh and empty.
 */
export function describeStoreContract(current: () => ObjectStore): void {
  const text = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes).toString("utf8"));
  const bytes = (value: string) => new TextEncoder().encode(value);

  async function collect(iterable: AsyncIterable<ObjectInfo>): Promise<ObjectInfo[]> {
    const found: ObjectInfo[] = [];
    for await (const info of iterable) found.push(info);
    return found;
  }

  describe("ObjectStore contract", () => {
    it("put then get returns the bytes of a string, a buffer and chunks", async () => {
      const store = current();
      await store.put("c/text.txt", "héllo ✓", "text/plain");
      await store.put("c/bytes.bin", new Uint8Array([0, 1, 254, 255]), "application/octet-stream");
      await store.put("c/chunks.bin", [bytes("one,"), new Uint8Array(), bytes("two")], "application/pdf");
      expect(text(await store.get("c/text.txt"))).toBe("héllo ✓");
      expect([...((await store.get("c/bytes.bin")) ?? [])]).toEqual([0, 1, 254, 255]);
      expect(text(await store.get("c/chunks.bin"))).toBe("one,two");
    });

    it("put replaces, and a read after it sees the new body; get of a missing object is null", async () => {
      const store = current();
      await store.put("r/x.json", "a longer first body", "application/json");
      expect(text(await store.get("r/x.json"))).toBe("a longer first body");
      await store.put("r/x.json", "second", "application/json");
      expect(text(await store.get("r/x.json"))).toBe("second");
      expect(await store.get("r/missing.json")).toBeNull();
    });

    it("create writes once, then answers false and keeps the first body", async () => {
      const store = current();
      expect(await store.create("n/a.json", "first", "application/json")).toBe(true);
      expect(await store.create("n/a.json", "second", "application/json")).toBe(false);
      await store.put("n/b.json", "put", "application/json");
      expect(await store.create("n/b.json", "create", "application/json")).toBe(false);
      expect(text(await store.get("n/a.json"))).toBe("first");
      expect(text(await store.get("n/b.json"))).toBe("put");
    });

    it("20 concurrent creates of one path: exactly one wins, and its body is stored", async () => {
      const store = current();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.create("race/x.json", `body-${i}`, "application/json")),
      );
      const winners = results.flatMap((won, i) => (won ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(text(await store.get("race/x.json"))).toBe(`body-${winners[0]}`);
    });

    it("delete removes an object; deleting a missing one is fine", async () => {
      const store = current();
      await store.put("d/x.txt", "x", "text/plain");
      await store.delete("d/x.txt");
      expect(await store.get("d/x.txt")).toBeNull();
      await expect(store.delete("d/x.txt")).resolves.toBeUndefined();
    });

    it("get with maxBytes reads an object up to the bound and refuses a larger one", async () => {
      const store = current();
      await store.put("b/ten.bin", new Uint8Array(10).fill(7), "application/octet-stream");
      expect([...((await store.get("b/ten.bin", { maxBytes: 10 })) ?? [])]).toEqual(new Array(10).fill(7));
      const refused = await store.get("b/ten.bin", { maxBytes: 9 }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ObjectTooLargeError);
      expect((refused as ObjectTooLargeError).size).toBeGreaterThan(9);
      expect(await store.get("b/missing.bin", { maxBytes: 9 })).toBeNull();
    });

    describe("getStream", () => {
      async function drain(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
        return Buffer.from(await new Response(stream).arrayBuffer());
      }

      it("streams an object's exact bytes with its size, across many chunks; null when absent", async () => {
        const store = current();
        // 3 MiB of varied bytes: more than one read on every driver, and order matters.
        const original = Buffer.alloc(3 * 1024 * 1024 + 17);
        for (let i = 0; i < original.length; i += 1) original[i] = (i * 31 + (i >> 11)) & 0xff;
        await store.put("s/big.bin", original, "application/octet-stream");
        const opened = await store.getStream("s/big.bin");
        expect(opened?.size).toBe(original.length);
        expect((await drain(opened!.body)).equals(original)).toBe(true);
        expect(await store.getStream("s/missing.bin")).toBeNull();
        expect(await store.getStream("missing-folder/x.bin")).toBeNull();
      });

      it("a stream cancelled after its first chunk releases the object: it can be replaced and deleted", async () => {
        const store = current();
        await store.put("s/cancel.bin", Buffer.alloc(1024 * 1024, 1), "application/octet-stream");
        const opened = await store.getStream("s/cancel.bin");
        const reader = opened!.body.getReader();
        const first = await reader.read();
        expect(first.done).toBe(false);
        await reader.cancel();
        await store.put("s/cancel.bin", "replaced", "application/octet-stream");
        expect(text(await store.get("s/cancel.bin"))).toBe("replaced");
        await store.delete("s/cancel.bin");
        expect(await store.getStream("s/cancel.bin")).toBeNull();
      });

      it("maxBytes: streams an object within the bound, refuses a larger one before a byte", async () => {
        const store = current();
        await store.put("s/ten.bin", new Uint8Array(10).fill(3), "application/octet-stream");
        const within = await store.getStream("s/ten.bin", { maxBytes: 10 });
        expect([...(await drain(within!.body))]).toEqual(new Array(10).fill(3));
        const refused = await store.getStream("s/ten.bin", { maxBytes: 9 }).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(ObjectTooLargeError);
        expect(await store.getStream("s/missing.bin", { maxBytes: 9 })).toBeNull();
      });

      it("a stream read after the object is replaced still gives one version whole, never a mix", async () => {
        const store = current();
        await store.put("s/swap.bin", Buffer.alloc(512 * 1024, 0x61), "application/octet-stream");
        const opened = await store.getStream("s/swap.bin");
        await store.put("s/swap.bin", Buffer.alloc(512 * 1024, 0x62), "application/octet-stream");
        const read = await drain(opened!.body);
        expect(read.length).toBe(512 * 1024);
        expect(new Set(read).size).toBe(1);
      });
    });

    it("putAll writes every object whole, replacing what was there, across folders", async () => {
      const store = current();
      await store.put("p/a/delivery.json", "older", "application/json");
      await store.putAll([
        { path: "p/a/delivery.json", body: "{}\n", contentType: "application/json" },
        { path: "p/b/chunks.bin", body: [bytes("one,"), bytes("two")], contentType: "application/pdf" },
        { path: "p/a/brief.json", body: '{"reference":"X"}', contentType: "application/json" },
      ]);
      expect(text(await store.get("p/a/delivery.json"))).toBe("{}\n");
      expect(text(await store.get("p/b/chunks.bin"))).toBe("one,two");
      expect(text(await store.get("p/a/brief.json"))).toBe('{"reference":"X"}');
      expect((await collect(store.list("p/"))).map((info) => info.path)).toEqual([
        "p/a/brief.json",
        "p/a/delivery.json",
        "p/b/chunks.bin",
      ]);
    });

    describe("beginUpload", () => {
      /** 3 MiB of varied bytes in uneven chunks, as a request's file part arrives. */
      function uploadChunks(): { chunks: Buffer[]; whole: Buffer } {
        const whole = Buffer.alloc(3 * 1024 * 1024 + 5);
        for (let i = 0; i < whole.length; i += 1) whole[i] = (i * 7 + (i >> 9)) & 0xff;
        const chunks: Buffer[] = [];
        for (let at = 0, n = 0; at < whole.length; n += 1) {
          const size = [65_536, 1, 100_003, 0, 7][n % 5] ?? 1;
          chunks.push(whole.subarray(at, at + size));
          at += size;
        }
        return { chunks, whole };
      }

      it("writes chunks as they come, reads any range back, and commit places the exact bytes at a path", async () => {
        const store = current();
        const { chunks, whole } = uploadChunks();
        const upload = await store.beginUpload();
        for (const chunk of chunks) await upload.write(chunk);
        expect(upload.size).toBe(whole.length);
        // Nothing is an object before the commit.
        expect(await collect(store.list(""))).toEqual([]);

        const middle = new Uint8Array(4096);
        expect(await upload.read(middle, 1_000_000)).toBe(4096);
        expect(Buffer.from(middle).equals(whole.subarray(1_000_000, 1_004_096))).toBe(true);
        const tail = new Uint8Array(100);
        expect(await upload.read(tail, whole.length - 10)).toBe(10);
        expect(await upload.read(tail, whole.length)).toBe(0);

        await upload.commit("u/brief/attachment.pdf", "application/pdf");
        expect(Buffer.from((await store.get("u/brief/attachment.pdf")) ?? []).equals(whole)).toBe(true);
        expect((await collect(store.list(""))).map((info) => info.path)).toEqual(["u/brief/attachment.pdf"]);
        // Discarding after the commit leaves the object alone.
        await upload.discard();
        expect((await store.get("u/brief/attachment.pdf"))?.byteLength).toBe(whole.length);
      });

      it("a discarded upload leaves nothing behind, and discarding twice is fine", async () => {
        const store = current();
        const upload = await store.beginUpload();
        await upload.write(Buffer.alloc(200_000, 9));
        await upload.discard();
        await upload.discard();
        expect(await collect(store.list(""))).toEqual([]);
        const untouched = await store.beginUpload();
        await untouched.discard();
        expect(await collect(store.list(""))).toEqual([]);
      });

      it("commit replaces an object already at the path", async () => {
        const store = current();
        await store.put("u/x/attachment.txt", "older and longer", "text/plain");
        const upload = await store.beginUpload();
        await upload.write(bytes("newer"));
        await upload.commit("u/x/attachment.txt", "text/plain");
        expect(text(await store.get("u/x/attachment.txt"))).toBe("newer");
      });
    });

    it("copy duplicates an object's bytes to a new path and leaves the source in place", async () => {
      const store = current();
      const body = new Uint8Array(70_000).map((_, i) => (i * 31) % 256);
      await store.put("staging/src/a.pdf", body, "application/octet-stream");
      await store.put("briefs/dst/attachment.png", "older", "image/png");
      await store.copy("staging/src/a.pdf", "briefs/dst/attachment.png", "image/png");
      expect(
        Buffer.compare(Buffer.from((await store.get("briefs/dst/attachment.png")) ?? []), Buffer.from(body)),
      ).toBe(0);
      expect((await store.get("staging/src/a.pdf"))?.byteLength).toBe(body.byteLength);
    });

    it("copy of a missing object fails with StoreUnavailableError and writes nothing", async () => {
      const store = current();
      await expect(
        store.copy("staging/none/a.pdf", "briefs/x/attachment.pdf", "application/pdf"),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await store.get("briefs/x/attachment.pdf")).toBeNull();
      expect(await collect(store.list("briefs/"))).toEqual([]);
    });

    describe("conditional writes", () => {
      it("getVersioned answers the bytes and a version that moves with every write, null when absent", async () => {
        const store = current();
        expect(await store.getVersioned("v/missing.json")).toBeNull();
        await store.put("v/x.json", "one", "application/json");
        const first = await store.getVersioned("v/x.json");
        expect(text(first?.bytes ?? null)).toBe("one");
        expect(first?.version).toEqual(expect.any(String));
        expect((await store.getVersioned("v/x.json"))?.version).toBe(first?.version);
        await store.put("v/x.json", "two", "application/json");
        const second = await store.getVersioned("v/x.json");
        expect(text(second?.bytes ?? null)).toBe("two");
        expect(second?.version).not.toBe(first?.version);
      });

      it("putIfVersion writes at the version it names, and refuses a stale one or a missing object", async () => {
        const store = current();
        await store.put("v/x.json", "one", "application/json");
        const read = await store.getVersioned("v/x.json");
        expect(await store.putIfVersion("v/x.json", "two", "application/json", read?.version ?? "")).toBe(
          true,
        );
        expect(text(await store.get("v/x.json"))).toBe("two");
        // The version read before that write is stale now.
        expect(await store.putIfVersion("v/x.json", "three", "application/json", read?.version ?? "")).toBe(
          false,
        );
        expect(text(await store.get("v/x.json"))).toBe("two");

        const now = await store.getVersioned("v/x.json");
        await store.delete("v/x.json");
        expect(await store.putIfVersion("v/x.json", "back", "application/json", now?.version ?? "")).toBe(
          false,
        );
        expect(await store.get("v/x.json")).toBeNull();
        expect(await store.putIfVersion("none/y.json", "y", "application/json", now?.version ?? "")).toBe(
          false,
        );
        expect(await collect(store.list("none/"))).toEqual([]);
      });

      it("deleteIfVersion removes only at the version it names", async () => {
        const store = current();
        await store.put("v/x.json", "one", "application/json");
        const stale = await store.getVersioned("v/x.json");
        await store.put("v/x.json", "two", "application/json");
        expect(await store.deleteIfVersion("v/x.json", stale?.version ?? "")).toBe(false);
        expect(text(await store.get("v/x.json"))).toBe("two");
        const fresh = await store.getVersioned("v/x.json");
        expect(await store.deleteIfVersion("v/x.json", fresh?.version ?? "")).toBe(true);
        expect(await store.get("v/x.json")).toBeNull();
        expect(await store.deleteIfVersion("v/x.json", fresh?.version ?? "")).toBe(false);
      });

      it("of 20 concurrent conditional writes at one version exactly one lands, whole", async () => {
        const store = current();
        await store.put("race/v.json", "start", "application/json");
        const { version } = (await store.getVersioned("race/v.json")) ?? { version: "" };
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.putIfVersion("race/v.json", `body-${i}`, "application/json", version),
          ),
        );
        const winners = results.flatMap((won, i) => (won ? [i] : []));
        expect(winners).toHaveLength(1);
        expect(text(await store.get("race/v.json"))).toBe(`body-${winners[0]}`);
        // Nothing the losers wrote is left where a listing would find it.
        expect((await collect(store.list("race/"))).map((info) => info.path)).toEqual(["race/v.json"]);
      });

      it("a conditional write racing a conditional delete at one version: exactly one wins", async () => {
        const store = current();
        for (let round = 0; round < 5; round++) {
          await store.put("race/d.json", "start", "application/json");
          const { version } = (await store.getVersioned("race/d.json")) ?? { version: "" };
          const [written, removed] = await Promise.all([
            store.putIfVersion("race/d.json", "written", "application/json", version),
            store.deleteIfVersion("race/d.json", version),
          ]);
          expect(written !== removed).toBe(true);
          expect(text(await store.get("race/d.json"))).toBe(written ? "written" : null);
        }
      });

      it("updateObject: 20 concurrent read-modify-writes of one object lose none of the changes", async () => {
        const store = current();
        const add = (item: string) =>
          updateObject(store, "race/list.json", "application/json", (bytes) => {
            const items = bytes === null ? [] : (JSON.parse(text(bytes) ?? "[]") as string[]);
            return { write: JSON.stringify([...items, item]), result: items.length };
          });
        const seen = await Promise.all(Array.from({ length: 20 }, (_, i) => add(`item-${i}`)));
        const items = JSON.parse(text(await store.get("race/list.json")) ?? "[]") as string[];
        expect([...items].sort()).toEqual(Array.from({ length: 20 }, (_, i) => `item-${i}`).sort());
        // Each saw a different list: every write was applied to the one before it.
        expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      });

      it("updateObject, likelyNew: a new object is created without a read; an existing one is updated as usual", async () => {
        const store = current();
        const reads: string[] = [];
        const watched: ObjectStore = Object.assign(Object.create(store) as ObjectStore, {
          get: (path: string, options?: object) => (reads.push(path), store.get(path, options)),
          getVersioned: (path: string, options?: object) => (
            reads.push(path),
            store.getVersioned(path, options)
          ),
        });
        const add = (item: string) =>
          updateObject(
            watched,
            "likely/list.json",
            "application/json",
            (bytes) => {
              const items = bytes === null ? [] : (JSON.parse(text(bytes) ?? "[]") as string[]);
              return { write: JSON.stringify([...items, item]), result: items.length };
            },
            { likelyNew: true },
          );
        expect(await add("first")).toBe(0);
        expect(reads).toEqual([]);
        expect(await add("second")).toBe(1);
        expect(reads.length).toBeGreaterThan(0);
        expect(JSON.parse(text(await store.get("likely/list.json")) ?? "[]")).toEqual(["first", "second"]);
        // Concurrent ones still lose nothing.
        await Promise.all(Array.from({ length: 10 }, (_, i) => add(`more-${i}`)));
        const items = JSON.parse(text(await store.get("likely/list.json")) ?? "[]") as string[];
        expect(items).toHaveLength(12);
      });
    });

    describe("list", () => {
      const paths = [
        "briefs/2026/01/31/REF-B/brief.json",
        "briefs/2026/01/31/REF-A/attachment.pdf",
        "briefs/2026/01/31/REF-A/brief.json",
        "briefs/2026/11/02/REF-C/brief.json",
        "briefs/2026/1x.json",
        "briefs-archive/old.json",
        "spam/2026/01/31/REF-D/brief.json",
        "top.json",
      ];

      async function fill(store: ObjectStore): Promise<void> {
        for (const path of paths) await store.put(path, `body of ${path}`, "application/json");
      }

      it.each<[string, string[]]>([
        ["", [...paths].sort()],
        [
          "briefs/",
          [
            "briefs/2026/01/31/REF-A/attachment.pdf",
            "briefs/2026/01/31/REF-A/brief.json",
            "briefs/2026/01/31/REF-B/brief.json",
            "briefs/2026/11/02/REF-C/brief.json",
            "briefs/2026/1x.json",
          ],
        ],
        [
          "briefs",
          [
            "briefs-archive/old.json",
            "briefs/2026/01/31/REF-A/attachment.pdf",
            "briefs/2026/01/31/REF-A/brief.json",
            "briefs/2026/01/31/REF-B/brief.json",
            "briefs/2026/11/02/REF-C/brief.json",
            "briefs/2026/1x.json",
          ],
        ],
        ["briefs/2026/1", ["briefs/2026/11/02/REF-C/brief.json", "briefs/2026/1x.json"]],
        [
          "briefs/2026/01/31/REF-A/",
          ["briefs/2026/01/31/REF-A/attachment.pdf", "briefs/2026/01/31/REF-A/brief.json"],
        ],
        ["top.json", ["top.json"]],
        ["nothing/here/", []],
        ["top.json/below", []],
      ])("prefix %j lists exactly the matching paths, in ascending order", async (prefix, expected) => {
        const store = current();
        await fill(store);
        const listed = await collect(store.list(prefix));
        expect(listed.map((info) => info.path)).toEqual(expected);
      });

      it("reports each object's size in bytes and when it was written", async () => {
        const store = current();
        const before = Date.now();
        await store.put("sized/a.bin", new Uint8Array(1234), "application/octet-stream");
        await store.put("sized/b.txt", "✓", "text/plain");
        const listed = await collect(store.list("sized/"));
        expect(listed.map(({ path, size }) => ({ path, size }))).toEqual([
          { path: "sized/a.bin", size: 1234 },
          { path: "sized/b.txt", size: 3 },
        ]);
        for (const info of listed) {
          expect(info.uploadedAt).toBeInstanceOf(Date);
          // File times may be truncated to the second on some file systems.
          expect(info.uploadedAt.getTime()).toBeGreaterThanOrEqual(before - 2_000);
          expect(info.uploadedAt.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
        }
      });

      it.each([["../x"], ["a//b"], ["/abs"], ["a/../b/"]])("refuses the prefix %j", async (prefix) => {
        await expect(collect(current().list(prefix))).rejects.toThrow(/Invalid object prefix/);
      });
    });
  });
}
