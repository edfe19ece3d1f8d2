import { type ObjectInfo, type ObjectStore, type RemoveExpiredOptions, removeExpired } from "../store";
import { SESSION_MAX_AGE_S, SIGN_IN_LINK_VALID_MS } from "./sign-in";

/**
 * What the inbox on the web leaves in the inbox store when Redis is not configured (with Redis,
 * keys expire on their own): a session for each sign-in, `ops/sessions/<hash>.json`, written again
 * at most once a minute while it is used, and refused 2 hours after its last use and 12 hours
 * after it began, so one unwritten for 12 hours is over; a marker filing it under its address,
 * `ops/session-index/<sha256>/<hash>.json`, written once, never needed past the session's 12
 * hours; and a marker for each spent link, `ops/spent-links/<id>.json`, needed only while the link
 * itself could still be used (15 minutes: an older link is refused for its age before its marker
 * is looked at). Their age is the store's time of their last writing.
 */
const EXPIRED = [
  { prefix: "ops/sessions/", maxAgeMs: SESSION_MAX_AGE_S * 1000 },
  { prefix: "ops/session-index/", maxAgeMs: SESSION_MAX_AGE_S * 1000 },
  // An hour, well past the link's 15 minutes and the clock skew between instances.
  { prefix: "ops/spent-links/", maxAgeMs: Math.max(SIGN_IN_LINK_VALID_MS, 60 * 60_000) },
] as const;

/** Removes (or lists) the expired sessions and spent-link markers of the inbox on the web. */
export function collectExpiredSignIns(
  store: ObjectStore,
  now: Date,
  options: RemoveExpiredOptions = {},
): Promise<ObjectInfo[]> {
  return removeExpired(store, now, EXPIRED, options);
}
