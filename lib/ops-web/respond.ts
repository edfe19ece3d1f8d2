import { ApiError, errorResponse, json, toApiError } from "../http/errors";
import { seeOther, wantsHtml } from "../http/navigation";

/**
 * How the inbox's state changes answer: JSON for a script, or, for a form the browser posted
 * itself, a 303 back to a page that shows the outcome (`?done=<status>` or `?error=<code>`).
 * The gate's refusals (401, 403, 404) are always the contract's JSON. Every failure is worded by
 * the API's one mapper, `toApiError`.
 */

const SHOWN_ON_THE_PAGE = new Set([
  "validation_failed",
  "rate_limited",
  "storage_unavailable",
  "email_unavailable",
]);

function withParams(location: string, params: Record<string, string>): string {
  const url = new URL(location, "http://inbox.invalid");
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return `${url.pathname}${url.search}${url.hash}`;
}

export function opsDone(
  request: Request,
  body: { status: string } & Record<string, unknown>,
  location: string,
  headers: Record<string, string> = {},
): Response {
  if (wantsHtml(request)) return seeOther(withParams(location, { done: body.status }), headers);
  return json({ ok: true, ...body }, { headers });
}

export function opsFailed(
  request: Request,
  error: unknown,
  location: string | null,
  headers: Record<string, string> = {},
): Response {
  const apiError = toApiError(error);
  if (location !== null && wantsHtml(request) && SHOWN_ON_THE_PAGE.has(apiError.code)) {
    const params: Record<string, string> = { error: apiError.code };
    const field = Object.keys(apiError.fields ?? {})[0];
    if (field) params.field = field;
    const retry = apiError.headers["Retry-After"];
    if (retry) params.retry = retry;
    return seeOther(withParams(location, params), { ...headers, ...apiError.headers });
  }
  return errorResponse(apiError, headers);
}

/**
 * The GET of a route that only takes POST: 404 while the inbox on the web is off (as every path
 * under `/api/ops`), else 405. `getServices` is the app's own, passed by the route.
 */
export function postOnly(getServices: () => { ops: unknown }): () => Response {
  return () => {
    let on = false;
    try {
      on = getServices().ops !== null;
    } catch {
      // a configuration error is reported at start
    }
    if (!on) return errorResponse(new ApiError("not_found"));
    return new Response(null, { status: 405, headers: { Allow: "POST", "Cache-Control": "no-store" } });
  };
}
