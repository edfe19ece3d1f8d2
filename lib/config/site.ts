import { STUDIO_NAME } from "../site/brand";
import type { ConfigReader } from "./reader";
import type { Config } from "./types";
import { displayName, list, origin, wholeNumber } from "./values";

/** This site's own name, for a site that does not set `SITE_NAME`. */
export const DEFAULT_SITE_NAME = STUDIO_NAME;

/**
 * The site: its origin and name, the other origins allowed to post, and how many proxies stand in
 * front.
 */
export function parseSite({
  raw,
  read,
}: ConfigReader): Pick<
  Config,
  "siteOrigin" | "siteName" | "allowedOrigins" | "trustedProxyHops" | "onVercel"
> {
  const siteOrigin = read(raw.SITE_URL, origin("SITE_URL"), "http://localhost:3000");
  const siteName = read(raw.SITE_NAME, displayName("SITE_NAME"), DEFAULT_SITE_NAME);
  const allowedOrigins = raw.ALLOWED_ORIGINS
    ? list(raw.ALLOWED_ORIGINS).map((item) => read(item, origin("ALLOWED_ORIGINS"), ""))
    : [];
  const trustedProxyHops = read(raw.TRUSTED_PROXY_HOPS, wholeNumber("TRUSTED_PROXY_HOPS", 0, 32), 1);
  return { siteOrigin, siteName, allowedOrigins, trustedProxyHops, onVercel: raw.VERCEL !== undefined };
}

/**
 * What the start warns about the client address, or `null`: with `TRUSTED_PROXY_HOPS` above 0 a
 * client that reaches `next start` directly writes the `X-Forwarded-For` entry that is read as its
 * address, and so escapes every per-client limit. On Vercel the edge writes it; elsewhere only the
 * operator knows whether a proxy stands in front, so the start says what it assumes.
 */
export function proxyHopsWarning(config: Pick<Config, "trustedProxyHops" | "onVercel">): string | null {
  if (config.trustedProxyHops === 0 || config.onVercel) return null;
  const hops = config.trustedProxyHops;
  return (
    `TRUSTED_PROXY_HOPS=${hops}: the client address is read from X-Forwarded-For, ${hops === 1 ? "the entry your reverse proxy appends" : `the entry ${hops} places from the right`}. ` +
    "If clients can reach this server directly (no proxy in front), each can choose its own address and escape every per-client limit: put a proxy in front, or set TRUSTED_PROXY_HOPS=0 (docs/deployment.md#client-addresses)"
  );
}
