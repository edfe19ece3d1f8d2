import { NextResponse } from "next/server";
import { getConfig } from "@/lib/config";
import { transportSecurityHeaders } from "@/lib/http/security-headers";

/**
 * Adds `Strict-Transport-Security` to pages and files when `SITE_URL` is https: the one security
 * header that depends on the configuration, which is read at run time (the others come from
 * `next.config.ts`). Never in front of the API: a proxy buffers request bodies (and cuts them at
 * 10 MB) before the route sees them, which would defeat the routes' own size checks; the API's
 * response builders add the header themselves, from the same function.
 */
export function proxy(): NextResponse {
  const response = NextResponse.next();
  for (const [name, value] of Object.entries(transportSecurityHeaders(getConfig().siteOrigin))) {
    response.headers.set(name, value);
  }
  return response;
}

export const config = {
  matcher: ["/((?!api/|_next/static|_next/image).*)"],
};
