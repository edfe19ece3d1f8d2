import type { Dispatcher } from "undici";
import { withAbortAfter } from "../timeout";

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

const FORM_HEADERS = { "content-type": "application/x-www-form-urlencoded" };

/**
 * POSTs `form` to siteverify at `url` and reads its answer, within `timeoutMs`. Through undici's
 * `request` rather than `fetch`, as the webhook channel posts: the same keep-alive connections
 * without web streams, Request and Response objects or Next's instrumentation of `fetch`. One signal
 * bounds the whole attempt, connecting and reading the answer included: undici aborts the request,
 * or destroys the answer's body, when it fires. Redirects are not followed (`request` follows none
 * unless asked). Never rejects.
 */
export async function askSiteverify(url: string, form: string, timeoutMs: number): Promise<Attempt> {
  return withAbortAfter(timeoutMs, (signal) => askWithin(url, form, timeoutMs, signal));
}

async function askWithin(
  url: string,
  form: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Attempt> {
  const late = (): Attempt => ({
    kind: "unavailable",
    problem: `siteverify did not answer within ${timeoutMs} ms`,
  });
  let response: Dispatcher.ResponseData;
  try {
    // Loaded by the first check, not with the routes: a server without Turnstile never loads it.
    const { request } = await import("undici");
    response = await request(url, { method: "POST", body: form, headers: FORM_HEADERS, signal });
  } catch (error) {
    if (signal.aborted) return late();
    return { kind: "unavailable", problem: `siteverify could not be reached: ${describe(error)}` };
  }
  const { statusCode, body } = response;
  if (statusCode < 200 || statusCode >= 300) {
    // Only the status matters; reading the body to its end frees the connection for the next check.
    await body.dump().catch(() => {});
    return refusalOf(statusCode);
  }
  let answer: unknown;
  try {
    // The Fetch Standard's `json()`: decoded as UTF-8, a leading byte order mark skipped.
    answer = await body.json();
  } catch {
    // An answer broken off, empty or not JSON; or one still arriving when the time ran out.
    if (signal.aborted) return late();
    return { kind: "unavailable", problem: "siteverify's answer is not JSON" };
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

/** A 5xx is siteverify being down; any other status (a 4xx, a redirect) refuses the request itself. */
function refusalOf(statusCode: number): Attempt {
  const problem = `siteverify answered HTTP ${statusCode}`;
  return statusCode >= 500 ? { kind: "unavailable", problem } : { kind: "refused", problem };
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
