import type { ObjectInfo, ObjectStore } from "../inbox";
import { SESSION_MAX_AGE_S, SIGN_IN_LINK_VALID_MS } from "./sign-in";

/**
 * What the inbox on the web leaves in the inbox store when Redis is not configured (with Redis,
 * keys expire on their own): a session for each sign-in, `ops/sessions/<hash>.json`, refused
 * once it is 12 hours old; and a marker for each spent link, `ops/spent-links/<id>.json`, needed
 * only while the link itself could still be used (15 minutes: an older link is refused for its
 * age before its marker is looked at). Both are written once and never changed, so their age is
 * the store's time of writing.
 */
const EXPIRED = [
  { prefix: "ops/sessions/", maxAgeMs: SESSION_MAX_AGE_S * 1000 },
  // An hour, well past the link's 15 minutes and the clock skew between instances.
  { prefix: "ops/spent-links/", maxAgeMs: Math.max(SIGN_IN_LINK_VALID_MS, 60 * 60_000) },
] as const;

export interface ExpiredSignInOptions {
  /** Only report what would be removed. */
  dryRun?: boolean;
  /** Called for each expired record as it is removed (or, with `dryRun`, found). */
  onExpired?: (record: ObjectInfo) => void | Promise<void>;
}

/** Removes (or lists) the expired sessions and spent-link markers of the inbox on the web. */
export async function collectExpiredSignIns(
  store: ObjectStore,
  now: Date,
  options: ExpiredSignInOptions = {},
): Promise<ObjectInfo[]> {
  const expired: ObjectInfo[] = [];
  for (const { prefix, maxAgeMs } of EXPIRED) {
    for await (const record of store.list(prefix)) {
      if (now.getTime() - record.uploadedAt.getTime() > maxAgeMs) expired.push(record);
    }
  }
  for (const record of expired) {
    if (!options.dryRun) await store.delete(record.path);
    await options.onExpired?.(record);
  }
  return expired;
}
