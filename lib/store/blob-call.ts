import { loadedVercelBlob, loadVercelBlob, type VercelBlob } from "./blob-sdk";
import { withinDeadline } from "./deadline";
import { type StoreCallOptions, StoreUnavailableError } from "./types";

/*
 * The Vercel Blob driver's call machinery, apart from its operations (blob.ts): every SDK call
 * bounded by the caller's deadline and the store's own, retried while time is left, and a write
 * already sent tracked until it can no longer land.
 */

/** The bounds a Blob store puts on each call (see `BlobStoreOptions`). */
export interface BlobCallLimits {
  callTimeoutMs: number;
  lateWriteLimitMs: number;
  lateWriteGraceMs: number;
}

/** What kind of call `blobCall` runs. */
export interface CallKind {
  /** The call changes the store: an attempt in flight is never cancelled early. */
  write?: boolean;
  /** Errors to give the caller as they are, for it to interpret. */
  passThrough?: (error: unknown) => boolean;
}

const FIRST_RETRY_MS = 250;

/** A store that answered 5xx, or could not be reached: worth another attempt while time is left. */
function isRetryable(error: unknown): boolean {
  const sdk = loadedVercelBlob();
  if (sdk === null) return false;
  if (error instanceof sdk.BlobServiceNotAvailable || error instanceof sdk.BlobUnknownError) return true;
  return error instanceof TypeError && !(error instanceof sdk.BlobError);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Runs one SDK call within the caller's deadline and this store's own bound, whichever ends
 * first, retrying a store that answers 5xx or cannot be reached (after 250 ms, then twice as
 * long each time) until then. No attempt starts after that; the one in flight is then:
 * - a read: cancelled, as nothing waits for it;
 * - a write: left to run until it is answered (or `lateWriteLimitMs` passes), since a write
 *   already sent may still land, and handed to the caller's `track`, so a caller undoing a
 *   failed save knows when nothing it wrote can still arrive; one given up on unanswered stays
 *   tracked `lateWriteGraceMs` longer, since the store may still accept it after that.
 * Errors become `StoreUnavailableError`, except those `passThrough` picks for the caller.
 */
export async function blobCall<T>(
  action: string,
  options: StoreCallOptions,
  work: (sdk: VercelBlob, abortSignal: AbortSignal) => Promise<T>,
  { callTimeoutMs, lateWriteLimitMs, lateWriteGraceMs }: BlobCallLimits,
  { write = false, passThrough = () => false }: CallKind = {},
): Promise<T> {
  // Not AbortSignal.any([AbortSignal.timeout(...), ...]): Node 20 holds the sources of `any`
  // weakly, and a timeout signal that nothing else holds can be collected before it fires.
  const answer = new AbortController();
  const answerBy = answer.signal;
  const giveUp = () => answer.abort();
  const bound = setTimeout(giveUp, callTimeoutMs);
  if (options.signal?.aborted) giveUp();
  options.signal?.addEventListener("abort", giveUp, { once: true });
  let abandoned = false;
  const attempt = (sdk: VercelBlob) => {
    const controller = new AbortController();
    const life = setTimeout(
      () => {
        abandoned = write;
        controller.abort();
      },
      write ? lateWriteLimitMs : callTimeoutMs,
    );
    const cancel = () => controller.abort();
    if (!write) answerBy.addEventListener("abort", cancel, { once: true });
    return work(sdk, controller.signal).finally(() => {
      clearTimeout(life);
      answerBy.removeEventListener("abort", cancel);
    });
  };
  const attempts = async () => {
    const sdk = await loadVercelBlob();
    for (let wait = FIRST_RETRY_MS; ; wait *= 2) {
      try {
        return await attempt(sdk);
      } catch (error) {
        if (!isRetryable(error) || answerBy.aborted) throw error;
      }
      await sleep(wait, answerBy);
      answerBy.throwIfAborted();
    }
  };
  const calls = attempts();
  if (write && options.track) {
    const grace = lateWriteGraceMs;
    const mayStillLand = () =>
      abandoned ? new Promise<void>((resolve) => setTimeout(resolve, grace)) : undefined;
    options.track(calls.then(() => undefined, mayStillLand));
  }
  try {
    return await withinDeadline(calls, { signal: answerBy, track: options.track }, action);
  } catch (error) {
    if (passThrough(error)) throw error;
    throw new StoreUnavailableError(`Vercel Blob: could not ${action}`, { cause: error });
  } finally {
    clearTimeout(bound);
    options.signal?.removeEventListener("abort", giveUp);
  }
}
