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
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(message);
      reject(error);
      controller.abort(error);
    }, ms);
  });
  const work = start(controller.signal);
  work.catch(() => {});
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
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
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  const working = work();
  working.catch(() => {});
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
  const timer = setTimeout(
    () => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
    ms,
  );
  try {
    return await start(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
