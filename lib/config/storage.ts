import type { ConfigReader } from "./reader";
import type { Config } from "./types";
import { z } from "zod";
import { MAX_NOTIFY_TIMEOUT_MS } from "../deliveries/lease";
import { httpUrl, rateLimitRule } from "./values";

/**
 * `NOTIFY_TIMEOUT_MS`: a whole number of milliseconds that a delivery attempt's lease can cover
 * (lib/deliveries/lease.ts), so that no second claimant sends an attempt still under way.
 */
const notifyTimeout = z.string().transform((value, ctx) => {
  const number = Number(value);
  if (/^\d+$/.test(value) && number >= 1 && number <= MAX_NOTIFY_TIMEOUT_MS) return number;
  ctx.addIssue({
    code: "custom",
    message:
      /^\d+$/.test(value) && number > MAX_NOTIFY_TIMEOUT_MS
        ? `NOTIFY_TIMEOUT_MS must be at most ${MAX_NOTIFY_TIMEOUT_MS}: a delivery attempt holds its claim for two sends of this long (the attempt and the "gave up" alert) plus its store calls, within a 10-minute lease; got "${value}"`
        : `NOTIFY_TIMEOUT_MS must be a whole number from 1 to ${MAX_NOTIFY_TIMEOUT_MS}, got "${value}"`,
  });
  return z.NEVER;
});

/**
 * Where briefs are kept and how hard the service is pushed: the inbox (filesystem or Vercel Blob),
 * the shared Redis for limits, the per-client rate limits, and the time bound on each notification.
 */
export function parseStorageAndLimits({
  raw,
  problems,
  read,
}: ConfigReader): Pick<Config, "inbox" | "redis" | "rateLimits" | "notifyTimeoutMs" | "ipHashSalt"> {
  const notifyTimeoutMs = read(raw.NOTIFY_TIMEOUT_MS, notifyTimeout, 5_000);
  const contact = read(raw.CONTACT_RATE_LIMIT, rateLimitRule("CONTACT_RATE_LIMIT"), {
    limit: 5,
    windowMs: 600_000,
    source: "5/10m",
  });
  const newsletter = read(raw.NEWSLETTER_RATE_LIMIT, rateLimitRule("NEWSLETTER_RATE_LIMIT"), {
    limit: 10,
    windowMs: 600_000,
    source: "10/10m",
  });
  const upload = read(raw.UPLOAD_RATE_LIMIT, rateLimitRule("UPLOAD_RATE_LIMIT"), {
    limit: 10,
    windowMs: 600_000,
    source: "10/10m",
  });

  // The SDK takes the store's id from the token (`vercel_blob_rw_<store id>_<secret>`) to address
  // private blobs: a token without one would fail on every read, so refuse it at start.
  if (raw.BLOB_READ_WRITE_TOKEN && !/^vercel_blob_rw_[A-Za-z0-9]+_\S+$/.test(raw.BLOB_READ_WRITE_TOKEN)) {
    problems.push("BLOB_READ_WRITE_TOKEN must look like vercel_blob_rw_<store id>_<secret>");
  }

  if (raw.UPSTASH_REDIS_REST_URL) read(raw.UPSTASH_REDIS_REST_URL, httpUrl("UPSTASH_REDIS_REST_URL"), null);
  if (Boolean(raw.UPSTASH_REDIS_REST_URL) !== Boolean(raw.UPSTASH_REDIS_REST_TOKEN)) {
    // Half a Redis configuration would quietly fall back to per-process limits: refuse it.
    problems.push("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together");
  }
  const redis =
    raw.UPSTASH_REDIS_REST_URL && raw.UPSTASH_REDIS_REST_TOKEN
      ? { url: raw.UPSTASH_REDIS_REST_URL, token: raw.UPSTASH_REDIS_REST_TOKEN }
      : null;

  return {
    inbox: raw.BLOB_READ_WRITE_TOKEN
      ? { driver: "vercel-blob", token: raw.BLOB_READ_WRITE_TOKEN }
      : { driver: "filesystem", dir: raw.INBOX_DIR ?? ".data/inbox" },
    redis,
    rateLimits: { contact, newsletter, upload },
    notifyTimeoutMs,
    ipHashSalt: raw.IP_HASH_SALT ?? null,
  };
}
