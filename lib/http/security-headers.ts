/**
 * The security headers of every response, pages and API alike, in one place. Most of them do not
 * depend on the configuration: `next.config.ts` sends them for every path, so they are fixed at
 * build. HSTS depends on `SITE_URL`, which is read at run time, so it is added per request: by
 * `proxy.ts` for pages and files, and by the API's response builders (`json`, `seeOther`) for the
 * routes, which no proxy may stand in front of (Next's proxy buffers request bodies). The inbox's
 * pages are rendered per request, so `proxy.ts` gives each its own policy, with a fresh nonce, and
 * the fixed headers too, for a site that adopts the package with a `next.config` of its own.
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
  return policyWithScripts("'unsafe-inline'", development);
}

/**
 * An inbox page's policy: the same, except that inline scripts run only with this request's
 * `nonce`. Next reads the nonce from the policy on the request and puts it on every script it
 * writes, so an injected `<script>` cannot run where a brief's text is shown to a signed-in op.
 */
function nonceContentSecurityPolicy(nonce: string, development = false): string {
  return policyWithScripts(`'nonce-${nonce}'`, development);
}

/** 128 random bits, base64: what a nonce must be to be unguessable. */
function newNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

function policyWithScripts(inlineScripts: string, development: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${inlineScripts}${development ? " 'unsafe-eval'" : ""} ${TURNSTILE_ORIGIN}`,
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

/**
 * `next.config.ts`'s source for every path but the inbox's, which take their policy from
 * `proxy.ts` instead (`perRequestPolicy`): one policy per answer.
 */
export const STATIC_POLICY_SOURCE = "/((?!inbox(?:/|$)).*)";

/**
 * The policy `proxy.ts` sends for a path that `STATIC_POLICY_SOURCE` leaves out, or `null` where
 * `next.config.ts` sends one. Next matches sources whatever their case while its pages are
 * case-sensitive: `/INBOX` is left out too, but no page answers it, only the 404 prerendered at
 * build, whose inline scripts need the static policy. An attachment keeps its sandbox (its own
 * entry in `next.config.ts`).
 */
export function perRequestPolicy(pathname: string, development = false): string | null {
  if (!INBOX_ANY_CASE.test(pathname) || ATTACHMENT.test(pathname)) return null;
  if (!INBOX.test(pathname)) return contentSecurityPolicy(development);
  return nonceContentSecurityPolicy(newNonce(), development);
}

const INBOX = /^\/inbox(?:\/|$)/;
const INBOX_ANY_CASE = new RegExp(INBOX.source, "i");
const ATTACHMENT = /^\/inbox\/[^/]+\/attachment\/?$/i;

/** The inbox on the web is never indexed, whatever answers there (a page, a download, a 404). */
export const NOINDEX_HEADERS = [{ key: "X-Robots-Tag", value: "noindex" }];

/**
 * What `proxy.ts` sends on an inbox path besides its policy: the headers this site's
 * `next.config.ts` sends there, which an adopting site's config does not (`init` never edits it).
 * The inbox's pages show briefs to signed-in ops, so they are never framed, sniffed or indexed
 * whatever the site's own config says: where both send a header, Next sends the proxy's value.
 */
export function inboxPathHeaders(pathname: string): { key: string; value: string }[] {
  return INBOX_ANY_CASE.test(pathname) ? [...staticSecurityHeaders(), ...NOINDEX_HEADERS] : [];
}

/** The headers that do not depend on the configuration, the policy aside (see `STATIC_POLICY_SOURCE`). */
export function staticSecurityHeaders(): { key: string; value: string }[] {
  return [
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
