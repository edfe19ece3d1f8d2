/**
 * The security headers of every response, pages and API alike, in one place. Most of them do not
 * depend on the configuration: `next.config.ts` sends them for every path, so they are fixed at
 * build. HSTS depends on `SITE_URL`, which is read at run time, so it is added per request: by
 * `proxy.ts` for pages and files, and by the API's response builders (`json`, `seeOther`) for the
 * routes, which no proxy may stand in front of (Next's proxy buffers request bodies).
 */
import { getConfig } from "../config";

/** Cloudflare Turnstile's widget: its script, and the iframe it renders. */
const TURNSTILE_ORIGIN = "https://challenges.cloudflare.com";

/** Where the browser uploads a file ahead of the form on the Vercel Blob inbox (`@vercel/blob/client`). */
const BLOB_UPLOAD_API = "https://vercel.com/api/blob/";

/**
 * As strict as a prerendered page allows. Next's App Router writes its page data into inline
 * `<script>` tags, and a page rendered once at build cannot carry a per-request nonce, so scripts
 * need `'unsafe-inline'` (with `'self'` and Turnstile's origin, nothing else); React sets `style`
 * attributes, hence `'unsafe-inline'` for styles. `next dev` also needs `'unsafe-eval'`. One build
 * serves every mode, so Turnstile's and the Blob upload API's origins are listed even where their
 * feature is off: they are the only origins beyond the site's own.
 */
export function contentSecurityPolicy(development = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${development ? " 'unsafe-eval'" : ""} ${TURNSTILE_ORIGIN}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self' ${BLOB_UPLOAD_API}`,
    `frame-src ${TURNSTILE_ORIGIN}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** An attachment served by the inbox on the web: a sandbox where nothing may load or run. */
export const ATTACHMENT_CONTENT_SECURITY_POLICY = "sandbox; default-src 'none'";

/** The headers that do not depend on the configuration. */
export function staticSecurityHeaders(development = false): { key: string; value: string }[] {
  return [
    { key: "Content-Security-Policy", value: contentSecurityPolicy(development) },
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
    { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
    // For browsers that predate `frame-ancestors`.
    { key: "X-Frame-Options", value: "DENY" },
  ];
}

/** Two years, as the HSTS preload list asks. */
const HSTS_MAX_AGE_S = 63_072_000;

/** `Strict-Transport-Security` when the site's public origin is https; none otherwise. */
export function transportSecurityHeaders(siteOrigin: string): Record<string, string> {
  if (!siteOrigin.startsWith("https:")) return {};
  return { "Strict-Transport-Security": `max-age=${HSTS_MAX_AGE_S}; includeSubDomains` };
}

/** HSTS for an API answer, from the process's configuration (none when it cannot be read). */
export function apiTransportSecurityHeaders(): Record<string, string> {
  try {
    return transportSecurityHeaders(getConfig().siteOrigin);
  } catch {
    return {}; // a configuration error is reported at start, and answered as such
  }
}
