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
