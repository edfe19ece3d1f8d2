import { NextResponse } from "next/server";
import { getConfig } from "@/lib/config";
import { transportSecurityHeaders } from "@/lib/http/security-headers";

/**
 * Adds `Strict-Transport-Security` when `SITE_URL` is https: the one security header that depends on
 * the configuration, which is read at run time (the others come from `next.config.ts`). Never in
 * front of `POST /api/contact`: a proxy buffers and truncates request bodies at 10 MB, so that route
 * adds the header itself, from the same function.
 */
export function proxy(): NextResponse {
  const response = NextResponse.next();
  for (const [name, value] of Object.entries(transportSecurityHeaders(getConfig().siteOrigin))) {
    response.headers.set(name, value);
  }
  return response;
}

export const config = {
  matcher: ["/((?!api/contact$|_next/static|_next/image).*)"],
};
