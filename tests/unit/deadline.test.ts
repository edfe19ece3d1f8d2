import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Deadline, StoreUnavailableError } from "@/lib/store";
import { withinDeadline } from "@/lib/store/deadline";

describe("Deadline", () => {
  it("aborts its signal with a TimeoutError once its time has passed, failing a call still running", async () => {
    const deadline = Deadline.in(50);
    const call = withinDeadline(new Promise(() => {}), deadline.options, "wait");
    await expect(call).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as DOMException).name).toBe("TimeoutError");
  });

  it("once ended with every call settled, never aborts", async () => {
    const deadline = Deadline.in(50);
    await withinDeadline(Promise.resolve("done"), deadline.options, "answer");
    deadline.end();
    await sleep(100);
    expect(deadline.signal.aborted).toBe(false);
  });

  it("ended while a call it stopped waiting for still runs, goes on bounding that call", async () => {
    const deadline = Deadline.in(50);
    let finish: () => void = () => {};
    const late = new Promise<void>((resolve) => (finish = resolve));
    // Tracked as a store call whose caller went on without it (a write whose answer was lost).
    deadline.options.track?.(late);
    deadline.end();
    await sleep(100);
    expect(deadline.signal.aborted).toBe(true);
    finish();
    await deadline.settled();
  });
});
