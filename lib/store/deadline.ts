import { timeoutReason } from "../timeout";
import { type StoreCallOptions, StoreUnavailableError } from "./types";

/**
 * One request's deadline over its store calls. A call still running when the deadline passes
 * answers its caller at once with `StoreUnavailableError`, but the work under it may go on: a
 * rename waiting for a hung disk still happens when the disk recovers, and a store may still
 * accept a write whose answer never came. Every call made under a deadline is tracked until it
 * settles, so whoever undoes a failed save can wait until nothing it started can still land.
 *
 * Its signal aborts with a `TimeoutError` from a timer of its own, not `AbortSignal.timeout`'s,
 * which runs its course however early the work ends and then builds a `DOMException` (with its
 * stack) for a signal nobody listens to any more: one per request (docs/performance.md). `end()`
 * clears that timer once the caller is done.
 */
export class Deadline {
  readonly signal: AbortSignal;
  private readonly calls: TrackedCalls;
  private readonly timer: ReturnType<typeof setTimeout>;

  private constructor(ms: number, calls: TrackedCalls) {
    const controller = new AbortController();
    this.signal = controller.signal;
    this.calls = calls;
    // Unreferenced, as `AbortSignal.timeout`'s is: a deadline never keeps the process alive.
    this.timer = setTimeout(() => controller.abort(timeoutReason()), ms);
    this.timer.unref?.();
  }

  /** A deadline `ms` from now. */
  static in(ms: number): Deadline {
    return new Deadline(ms, new TrackedCalls());
  }

  /** A fresh deadline `ms` from now whose calls are tracked with this one's (for a cleanup). */
  extend(ms: number): Deadline {
    return new Deadline(ms, this.calls);
  }

  /** What to pass to the store's calls. */
  get options(): StoreCallOptions {
    return { signal: this.signal, track: this.calls.track };
  }

  /** Some call made under this deadline (or one it was extended from) has not settled yet. */
  get pending(): boolean {
    return this.calls.pending;
  }

  /** Resolves once every call made under this deadline has settled, however long that takes. */
  settled(): Promise<void> {
    return this.calls.settled();
  }

  /**
   * The caller makes no more calls under this deadline: its timer is cleared, unless a call made
   * under it is still running (its caller stopped waiting), which the deadline goes on bounding.
   */
  end(): void {
    if (!this.calls.pending) clearTimeout(this.timer);
  }
}

/**
 * Deadlines for calls made one after another, each `ms` from its own start: an upload's writes,
 * where the client sets the pace of the whole but each call must answer in time. One signal and
 * one timer, armed for each call and cleared when it returns, serve every call. A `Deadline` per
 * call would leave its timeout signal and timer alive for the whole `ms` after the call, one per
 * chunk of a file: several MiB of heap under concurrent uploads (docs/performance.md). Once a
 * call has run out of time, the signal stays aborted and every later call fails at once.
 */
export class CallDeadlines {
  private readonly controller = new AbortController();
  private readonly calls = new TrackedCalls();
  private readonly options: StoreCallOptions = { signal: this.controller.signal, track: this.calls.track };
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly ms: number) {}

  /** Runs `call` with options whose signal aborts `ms` from now, unless `call` has returned by then. */
  async run<T>(call: (options: StoreCallOptions) => Promise<T>): Promise<T> {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const reason = new DOMException("The store call took too long.", "TimeoutError");
      this.controller.abort(reason);
    }, this.ms);
    try {
      return await call(this.options);
    } finally {
      clearTimeout(this.timer);
    }
  }

  /** Some call has not settled yet (its caller may have stopped waiting for it). */
  get pending(): boolean {
    return this.calls.pending;
  }

  /** Resolves once every call has settled, however long that takes. */
  settled(): Promise<void> {
    return this.calls.settled();
  }
}

/** Store calls whose caller may stop waiting for them, kept until each settles (`StoreCallOptions.track`). */
class TrackedCalls {
  private readonly calls = new Set<Promise<unknown>>();

  readonly track = (work: Promise<unknown>): void => {
    this.calls.add(work);
    const forget = () => this.calls.delete(work);
    work.then(forget, forget);
  };

  get pending(): boolean {
    return this.calls.size > 0;
  }

  async settled(): Promise<void> {
    while (this.calls.size > 0) await Promise.allSettled([...this.calls]);
  }
}

/**
 * `work`'s outcome, or `StoreUnavailableError` as soon as the caller's deadline (`signal`) passes,
 * whichever comes first. `work` is handed to the caller's `track` either way: it goes on until it
 * settles, and its late failure is not an unhandled rejection.
 */
export async function withinDeadline<T>(
  work: Promise<T>,
  options: StoreCallOptions,
  action: string,
): Promise<T> {
  work.catch(() => {});
  options.track?.(work);
  const { signal } = options;
  if (!signal) return work;
  let onAbort: () => void = () => {};
  const expired = new Promise<never>((_, reject) => {
    onAbort = () => reject(new StoreUnavailableError(`Could not ${action} before the deadline`));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  expired.catch(() => {});
  try {
    return await Promise.race([work, expired]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
