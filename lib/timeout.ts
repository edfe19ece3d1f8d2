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
