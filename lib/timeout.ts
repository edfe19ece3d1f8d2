/**
 * `start(signal)`'s result, or an `Error(message)` once `ms` have passed. At that moment the
 * signal is aborted too, and the work's own later settling is not an unhandled rejection. Raced as
 * well as aborted: the bound holds whatever the work does with its signal.
 */
export async function withTimeout<T>(
  ms: number,
  start: (signal: AbortSignal) => Promise<T>,
  message = `no answer within ${ms} ms`,
): Promise<T> {
  const controller = new AbortController();
  return raceTimer(ms, start(controller.signal), message, (error) => controller.abort(error));
}

/**
 * `work()`'s result, or an `Error(message)` once `ms` have passed: `withTimeout` for work that takes
 * no signal (the acknowledgment's bound over the window and the send, each with bounds of its own
 * inside), without the `AbortController` nobody would listen to. The work's own later settling is
 * not an unhandled rejection.
 */
export async function raceTimeout<T>(
  ms: number,
  work: () => Promise<T>,
  message = `no answer within ${ms} ms`,
): Promise<T> {
  return raceTimer(ms, work(), message);
}

/** `working`'s outcome, or `Error(message)` (first handed to `onExpire`) once `ms` have passed; the timer cleared either way. */
async function raceTimer<T>(
  ms: number,
  working: Promise<T>,
  message: string,
  onExpire?: (error: Error) => void,
): Promise<T> {
  working.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(message);
      reject(error);
      onExpire?.(error);
    }, ms);
  });
  try {
    return await Promise.race([working, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `start(signal)`, its signal aborted with a `TimeoutError` once `ms` have passed, and the timer
 * cleared as soon as the work settles. Not `AbortSignal.timeout`, whose timer runs its course
 * however early the work ends and then builds a `DOMException` (with its stack) for a signal nobody
 * listens to any more: after every request that made one (docs/performance.md). Not raced: the
 * work answers its aborted signal itself.
 */
export async function withAbortAfter<T>(ms: number, start: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(timeoutReason()), ms);
  try {
    return await start(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** What a signal bounded by time aborts with: what `AbortSignal.timeout` would. */
export function timeoutReason(): DOMException {
  return new DOMException("The operation was aborted due to timeout", "TimeoutError");
}
