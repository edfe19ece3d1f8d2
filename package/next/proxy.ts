import { type NextRequest, NextResponse } from "next/server";
import { getConfig } from "@/lib/config";
import { inboxPathHeaders, perRequestPolicy, transportSecurityHeaders } from "@/lib/http/security-headers";

/**
 * Adds the security headers that are made per request (the others come from `next.config.ts`):
 * `Strict-Transport-Security` when `SITE_URL` is https, read at run time; and on the inbox's
 * pages, which are rendered per request anyway, a Content Security Policy with a fresh nonce. Next
 * reads that policy from the request and puts its nonce on every script it writes into the page.
 * On the inbox's paths also the fixed headers (`nosniff`, `X-Frame-Options`, `noindex`, ...), which
 * this site's `next.config.ts` sends everywhere but an adopting site's config does not.
 * Never in front of the API (its `config.matcher` is in the site's own proxy.ts, where Next reads it:
 * package/cli/routes.ts): a proxy buffers request bodies (and cuts them at 10 MB) before the route
 * sees them, which would defeat the routes' own size checks; the API's response builders add HSTS
 * themselves, from the same function.
 */
export function proxy(request: NextRequest): NextResponse {
  const policy = perRequestPolicy(request.nextUrl.pathname, process.env.NODE_ENV === "development");
  const response = policy ? nextWithPolicy(request, policy) : NextResponse.next();
  for (const { key, value } of inboxPathHeaders(request.nextUrl.pathname)) response.headers.set(key, value);
  for (const [name, value] of Object.entries(transportSecurityHeaders(getConfig().siteOrigin))) {
    response.headers.set(name, value);
  }
  return response;
}

/** On to the page with `policy` on the request (where Next reads its nonce) and on the answer. */
function nextWithPolicy(request: NextRequest, policy: string): NextResponse {
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  return response;
}
