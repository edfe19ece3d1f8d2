import { type Dispatcher, getGlobalDispatcher } from "undici";

/** What one request to siteverify came to. */
export type Attempt =
  | { kind: "answer"; answer: SiteverifyAnswer }
  /** siteverify could not be asked: unreachable, too slow, a 5xx, or an answer that is not one. */
  | { kind: "unavailable"; problem: string }
  /** siteverify refused the request itself (a 4xx): a configuration to fix, never a pass. */
  | { kind: "refused"; problem: string };

export interface SiteverifyAnswer {
  success: boolean;
  hostname?: unknown;
  action?: unknown;
  "error-codes"?: unknown;
}

/** Where siteverify is, as undici's `dispatch` takes it: the URL's origin, and its path with the query. */
export interface SiteverifyTarget {
  origin: string;
  path: string;
}

export function siteverifyTarget(url: string): SiteverifyTarget {
  const parsed = new URL(url);
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
}

const FORM_HEADERS = { "content-type": "application/x-www-form-urlencoded" };

/** A UTF-8 byte order mark, which undici's `body.json()` skips too. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * POSTs `form` to siteverify and reads its answer, within `timeoutMs`. Through undici's `dispatch`
 * on the process's keep-alive dispatcher (the one its `request` and `fetch` use), with a handler
 * that keeps the body's chunks: none of `request`'s per-call machinery (an async resource, a body
 * stream, an abort signal with its `DOMException`), which under Next's request context cost about
 * as much again as the request itself (docs/performance.md). One timer bounds the whole attempt,
 * connecting included, and is cleared by its outcome; the request is aborted when it fires.
 * Redirects are not followed. Never rejects.
 */
export function askSiteverify(target: SiteverifyTarget, form: string, timeoutMs: number): Promise<Attempt> {
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    let abort: ((reason?: Error) => void) | null = null;
    let statusCode = 0;
    const chunks: Buffer[] = [];
    const settle = (attempt: Attempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(attempt);
    };
    const timer = setTimeout(() => {
      settle({ kind: "unavailable", problem: `siteverify did not answer within ${timeoutMs} ms` });
      abort?.(new Error("siteverify did not answer in time"));
    }, timeoutMs);
    const handler: Dispatcher.DispatchHandlers = {
      onConnect(abortRequest) {
        // Out of time before the request was even written: it is not sent.
        if (settled) abortRequest(new Error("siteverify did not answer in time"));
        else abort = abortRequest;
      },
      onHeaders(status) {
        statusCode = status;
        return true;
      },
      onData(chunk) {
        if (isSuccess(statusCode)) chunks.push(chunk);
        return true;
      },
      onComplete() {
        settle(isSuccess(statusCode) ? readAnswer(chunks) : refusalOf(statusCode));
      },
      onError(error) {
        if (statusCode === 0) {
          settle({ kind: "unavailable", problem: `siteverify could not be reached: ${describe(error)}` });
        } else {
          // The answer broke off after its status line: as if its body were not JSON.
          settle(isSuccess(statusCode) ? notJson() : refusalOf(statusCode));
        }
      },
    };
    try {
      getGlobalDispatcher().dispatch(
        { origin: target.origin, path: target.path, method: "POST", body: form, headers: FORM_HEADERS },
        handler,
      );
    } catch (error) {
      settle({ kind: "unavailable", problem: `siteverify could not be reached: ${describe(error)}` });
    }
  });
}

function isSuccess(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/** A 5xx is siteverify being down; any other status (a 4xx, a redirect) refuses the request itself. */
function refusalOf(statusCode: number): Attempt {
  const problem = `siteverify answered HTTP ${statusCode}`;
  return statusCode >= 500 ? { kind: "unavailable", problem } : { kind: "refused", problem };
}

function notJson(): Attempt {
  return { kind: "unavailable", problem: "siteverify's answer is not JSON" };
}

function readAnswer(chunks: readonly Buffer[]): Attempt {
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  let answer: unknown;
  try {
    answer = JSON.parse(bytes.toString("utf8", bytes.subarray(0, 3).equals(BOM) ? 3 : 0));
  } catch {
    return notJson();
  }
  if (
    typeof answer !== "object" ||
    answer === null ||
    typeof (answer as { success?: unknown }).success !== "boolean"
  ) {
    return { kind: "unavailable", problem: "siteverify's answer has no success flag" };
  }
  return { kind: "answer", answer: answer as SiteverifyAnswer };
}

/** One line about a failure: the error's message and its cause's (`fetch failed: connect ECONNREFUSED ...`). */
function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && parts.length < 3) {
    if (current.message && !parts.includes(current.message)) parts.push(current.message);
    current = current.cause;
  }
  return (parts.join(": ") || String(error)).replace(/\s+/g, " ").slice(0, 300);
}
