import { constants, PerformanceObserver, performance, type PerformanceEntry } from "node:perf_hooks";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { collectYoungGeneration, SpentBuffers, spentBuffers } from "@/lib/spent-buffers";
import { spoolStream } from "@/lib/store/blob-bodies";
import { SpoolFile } from "@/lib/store/spool";

/** When the spent chunks of request bodies are collected, and that the collection frees them. */

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function counted(options: { stepBytes?: number; quietBytes?: number; quietMs?: number } = {}) {
  let collections = 0;
  const bodies = new SpentBuffers({
    collect: () => (collections += 1),
    stepBytes: options.stepBytes ?? 1000,
    quietBytes: options.quietBytes ?? 100,
    quietMs: options.quietMs ?? 250,
  });
  return { bodies, collections: () => collections };
}

describe("SpentBuffers", () => {
  it("collects once a step of body bytes has been read, on the next turn, once however many chunks follow", async () => {
    vi.useFakeTimers();
    const { bodies, collections } = counted();
    bodies.chunkRead(600);
    bodies.chunkRead(399);
    await vi.advanceTimersByTimeAsync(0);
    expect(collections()).toBe(0);
    bodies.chunkRead(1); // 1,000: a step
    expect(collections()).toBe(0); // not inside the chunk's own callback
    bodies.chunkRead(5000);
    await vi.advanceTimersByTimeAsync(0);
    expect(collections()).toBe(1);
    // The count starts again from the collection.
    bodies.chunkRead(999);
    await vi.advanceTimersByTimeAsync(0);
    expect(collections()).toBe(1);
    bodies.chunkRead(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(collections()).toBe(2);
  });

  it("collects when no body has ended for the quiet time after enough bytes, and not for less", async () => {
    vi.useFakeTimers();
    const { bodies, collections } = counted();
    bodies.chunkRead(99);
    bodies.bodyEnded();
    await vi.advanceTimersByTimeAsync(1000);
    expect(collections()).toBe(0); // 99 bytes: not worth a collection

    bodies.chunkRead(1);
    bodies.bodyEnded();
    await vi.advanceTimersByTimeAsync(200);
    bodies.chunkRead(10);
    bodies.bodyEnded(); // another body: the quiet starts again
    await vi.advanceTimersByTimeAsync(200);
    expect(collections()).toBe(0);
    await vi.advanceTimersByTimeAsync(50);
    expect(collections()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(collections()).toBe(1);
  });

  it("a step's collection takes the place of the quiet one due", async () => {
    vi.useFakeTimers();
    const { bodies, collections } = counted();
    bodies.chunkRead(500);
    bodies.bodyEnded();
    bodies.chunkRead(500);
    await vi.advanceTimersByTimeAsync(0);
    expect(collections()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(collections()).toBe(1);
  });
});

describe("collectYoungGeneration", () => {
  it("runs V8's young-generation collection then and there", async () => {
    const collections: PerformanceEntry[] = [];
    const observer = new PerformanceObserver((list) => collections.push(...list.getEntries()));
    observer.observe({ entryTypes: ["gc"] });
    try {
      // The first call makes the context `gc` comes from; an allocation there could start a
      // collection of V8's own inside the window, so the window is the second call's.
      collectYoungGeneration();
      const start = performance.now();
      collectYoungGeneration();
      const end = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 50)); // entries arrive after the call
      // Nothing else runs on this thread between start and end: a collection in there is the call's.
      const during = collections.filter((entry) => entry.startTime >= start && entry.startTime <= end);
      expect(during.map((entry) => (entry as { detail?: { kind?: number } }).detail?.kind)).toEqual([
        constants.NODE_PERFORMANCE_GC_MINOR,
      ]);
    } finally {
      observer.disconnect();
    }
  });
});

/** A spool file of `bytes` for `work`, removed afterwards with its folder. */
async function withSpool(bytes: number, work: (spool: SpoolFile) => Promise<void>): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), "spent-buffers-"));
  const spool = await SpoolFile.create(folder, "upload-");
  try {
    await spool.write(Buffer.alloc(bytes, 7));
    await work(spool);
  } finally {
    await spool.remove();
    await rm(folder, { recursive: true, force: true });
  }
}

describe("the Blob store's spool stream", () => {
  it("counts every chunk it reads back from the file for spentBuffers, and tells it when the file is sent", async () => {
    const chunkRead = vi.spyOn(spentBuffers, "chunkRead");
    const bodyEnded = vi.spyOn(spentBuffers, "bodyEnded");
    await withSpool(200_000, async (spool) => {
      let sent = 0;
      const reader = spoolStream(spool).getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read())
        sent += next.value.byteLength;
      expect(sent).toBe(200_000);
      expect(chunkRead.mock.calls.map(([bytes]) => bytes)).toEqual([65_536, 65_536, 65_536, 3_392]);
      expect(bodyEnded).toHaveBeenCalledOnce();
    });
  });

  it("tells spentBuffers the body ended when the send is broken off", async () => {
    const bodyEnded = vi.spyOn(spentBuffers, "bodyEnded");
    await withSpool(200_000, async (spool) => {
      const reader = spoolStream(spool).getReader();
      await reader.read();
      expect(bodyEnded).not.toHaveBeenCalled();
      await reader.cancel();
      expect(bodyEnded).toHaveBeenCalledOnce();
    });
  });
});
