import { afterEach, describe, expect, it, vi } from "vitest";
import { raceTimeout, withAbortAfter, withTimeout } from "@/lib/timeout";

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

describe("raceTimeout", () => {
  it("rejects with the message once the time has passed, whatever the work does later", async () => {
    vi.useFakeTimers();
    let finish: (value: string) => void = () => {};
    let fail: (error: Error) => void = () => {};
    const late = raceTimeout(
      1000,
      () => new Promise<string>((resolve) => (finish = resolve)),
      "no answer within 1000 ms",
    );
    const lateFailure = raceTimeout(1000, () => new Promise<string>((_, reject) => (fail = reject)));
    const outcomes = Promise.allSettled([late, lateFailure]);
    await vi.advanceTimersByTimeAsync(1000);
    finish("too late");
    fail(new Error("refused, too late"));
    const [first, second] = await outcomes;
    expect(first).toMatchObject({ status: "rejected", reason: { message: "no answer within 1000 ms" } });
    expect(second).toMatchObject({ status: "rejected", reason: { message: "no answer within 1000 ms" } });
  });

  it("answers with the work's result or failure and clears its timer", async () => {
    vi.useFakeTimers();
    await expect(raceTimeout(1000, async () => "answer")).resolves.toBe("answer");
    await expect(raceTimeout(1000, async () => Promise.reject(new Error("refused")))).rejects.toThrow(
      "refused",
    );
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("withTimeout", () => {
  it("rejects with the message once the time has passed and aborts the work's signal with that error", async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    const late = withTimeout(
      1000,
      (given) => {
        signal = given;
        return new Promise<string>(() => {});
      },
      "no answer within 1000 ms",
    );
    const outcome = Promise.allSettled([late]);
    await vi.advanceTimersByTimeAsync(999);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const [settled] = await outcome;
    expect(settled).toMatchObject({ status: "rejected", reason: { message: "no answer within 1000 ms" } });
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe((settled as PromiseRejectedResult).reason);
  });

  it("answers with the work's result, clears its timer and leaves the signal alone", async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    await expect(
      withTimeout(1000, async (given) => {
        signal = given;
        return "answer";
      }),
    ).resolves.toBe("answer");
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(signal?.aborted).toBe(false);
  });
});
