/**
 * The contact form's cross-origin rule. A request is cross-origin when its `Origin` is present and
 * is none of: the request's own origin, the site's origin, an allowed origin; when `Origin` is the
 * string `null`; or, with no `Origin`, when `Sec-Fetch-Site` says `cross-site` or `same-site`.
 * A request with neither header (curl, a server) is not cross-origin.
 */
export function isCrossOrigin(
  headers: Headers,
  allowed: { siteOrigin: string; allowedOrigins: readonly string[] },
): boolean {
  const origin = headers.get("origin");
  if (origin === null) {
    const site = headers.get("sec-fetch-site")?.trim().toLowerCase();
    return site === "cross-site" || site === "same-site";
  }
  const claimed = toOrigin(origin.trim());
  if (claimed === null) return true;
  const own = requestOrigin(headers);
  return !(claimed === own || claimed === allowed.siteOrigin || allowed.allowedOrigins.includes(claimed));
}

/** Where a request says it came from, as a subscriber's consent evidence records it. */
export type RequestSite = "same-origin" | "cross-site" | "unknown";

/**
 * `same-origin`: the site's own pages sent it (its `Origin` is one the contact form accepts, or
 * with no `Origin`, `Sec-Fetch-Site: same-origin`). `cross-site`: a browser marked it as sent from
 * another site: an `Origin` that is none of those (`null` included), or with no `Origin`,
 * `Sec-Fetch-Site: cross-site` or `same-site` (another origin, as the contact form's rule counts it).
 * `unknown`: neither header says (a script, a server).
 */
export function requestSite(
  headers: Headers,
  allowed: { siteOrigin: string; allowedOrigins: readonly string[] },
): RequestSite {
  if (headers.get("origin") !== null) return isCrossOrigin(headers, allowed) ? "cross-site" : "same-origin";
  const site = headers.get("sec-fetch-site")?.trim().toLowerCase();
  if (site === "same-origin") return "same-origin";
  return isCrossOrigin(headers, allowed) ? "cross-site" : "unknown";
}

/** Scheme and host the client addressed, as the proxy in front reports them, else from `Host`. */
export function requestOrigin(headers: Headers): string | null {
  const host = firstEntry(headers.get("x-forwarded-host")) ?? headers.get("host");
  if (!host) return null;
  const proto = firstEntry(headers.get("x-forwarded-proto")) ?? "http";
  return toOrigin(`${proto}://${host}`);
}

function firstEntry(value: string | null): string | null {
  const entry = value?.split(",")[0]?.trim();
  return entry ? entry : null;
}

function toOrigin(value: string): string | null {
  if (value === "null") return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}
