import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { threadFileWorker } from "@/lib/store/writer-thread";

describe("the filesystem inbox's file thread", () => {
  it("writes durably and reads back, from its own thread", async () => {
    const folder = await mkdtemp(join(tmpdir(), "intake-thread-"));
    const files = threadFileWorker();
    const target = join(folder, "a", "b", "record.json");
    await files.run("put", { target, body: [Buffer.from("héllo "), Buffer.from("✓")] });
    expect(await readFile(target, "utf8")).toBe("héllo ✓");
    const found = await files.run("read", { target });
    expect(found && "bytes" in found && Buffer.from(found.bytes).toString("utf8")).toBe("héllo ✓");
    expect(await files.run("read", { target, maxBytes: 3 })).toEqual({ tooLarge: 10 });
    expect(await files.run("read", { target: join(folder, "missing.json") })).toBeNull();
    expect(await files.run("create", { target, body: "again" })).toBe(false);
  });

  it("keeps the system's error code, so a caller can tell a missing folder", async () => {
    const folder = await mkdtemp(join(tmpdir(), "intake-thread-"));
    await expect(
      threadFileWorker().run("writeTemp", { target: join(folder, "none", "x.json"), body: "{}" }),
    ).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a call whose deadline has passed stops at its next step there", async () => {
    const folder = await mkdtemp(join(tmpdir(), "intake-thread-"));
    const signal = AbortSignal.abort();
    await expect(
      threadFileWorker().run("put", { target: join(folder, "x.json"), body: "{}" }, signal),
    ).rejects.toThrow();
  });

  it("if the thread stops, the calls it held fail and the next call starts a new one", async () => {
    const folder = await mkdtemp(join(tmpdir(), "intake-thread-"));
    const files = threadFileWorker();
    const held = files.run("put", { target: join(folder, "held.json"), body: "{}" });
    // An operation the thread does not have throws there, outside any call: the thread stops.
    const broken = files.run("no-such-operation" as "put", { target: "", body: "" });
    await expect(broken).rejects.toThrow();
    await expect(held).rejects.toThrow();
    const target = join(folder, "after.json");
    await files.run("put", { target, body: "fine" });
    expect(await readFile(target, "utf8")).toBe("fine");
  });
});
