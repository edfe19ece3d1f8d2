import { afterEach, describe, expect, it, vi } from "vitest";
import { withAbortAfter } from "@/lib/timeout";

afterEach(() => {
  vi.useRealTimers();
});

describe("withAbortAfter", () => {
  it("aborts the work's signal with a TimeoutError once the time has passed", async () => {
    vi.useFakeTimers();
    const seen = withAbortAfter(
      1000,
      (signal) =>
        new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason))),
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const reason = await seen;
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe("TimeoutError");
  });

  it("clears its timer as soon as the work settles, answered or failed, and never aborts it", async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    await expect(
      withAbortAfter(1000, async (given) => {
        signal = given;
        return "answer";
      }),
    ).resolves.toBe("answer");
    expect(vi.getTimerCount()).toBe(0);
    await expect(withAbortAfter(1000, async () => Promise.reject(new Error("refused")))).rejects.toThrow(
      "refused",
    );
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(signal?.aborted).toBe(false);
  });
});
