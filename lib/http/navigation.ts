import { apiTransportSecurityHeaders } from "./security-headers";

/**
 * A form posted by the browser itself (no JavaScript) navigates to the response, so it gets a
 * redirect to a page instead of JSON. `fetch` and XHR callers send `Accept: *∕*` or JSON and keep
 * getting the JSON contract.
 */
export function wantsHtml(request: Request): boolean {
  return /(^|,)\s*text\/html\s*(;|,|$)/i.test(request.headers.get("accept") ?? "");
}

/** 303: the browser follows with a GET, so reloading the next page never re-posts the form. */
export function seeOther(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, {
    status: 303,
    headers: {
      ...apiTransportSecurityHeaders(),
      ...headers,
      Location: location,
      "Cache-Control": "no-store",
    },
  });
}
