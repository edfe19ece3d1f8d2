import { constants, PerformanceObserver, performance, type PerformanceEntry } from "node:perf_hooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { collectYoungGeneration, SpentBodies } from "@/lib/http/spent-bodies";

/** When the spent chunks of request bodies are collected, and that the collection frees them. */

afterEach(() => {
  vi.useRealTimers();
});

function counted(options: { stepBytes?: number; quietBytes?: number; quietMs?: number } = {}) {
  let collections = 0;
  const bodies = new SpentBodies({
    collect: () => (collections += 1),
    stepBytes: options.stepBytes ?? 1000,
    quietBytes: options.quietBytes ?? 100,
    quietMs: options.quietMs ?? 250,
  });
  return { bodies, collections: () => collections };
}

describe("SpentBodies", () => {
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
