import type { Config } from "../config";
import type { ObjectStore } from "../store";
import type { LinkSigner } from "../links";
import type { RateLimiters } from "../ratelimit";
import { createRedisClient } from "../ratelimit/upstash";
import type { VisitorMailer } from "../visitor-email";
import { InboxSessionStore, RedisSessionStore } from "./sessions";
import type { OpsServices } from "./sign-in";

export {
  endEverySession,
  liveSession,
  type OpsServices,
  parseSignInEmail,
  requestSignInLink,
  safeNext,
  sendSignInLink,
  SESSION_COOKIE,
  sessionCookie,
  SIGN_IN_MESSAGES,
  startSession,
} from "./sign-in";
export { hashId, type OpsSession, type SessionStore, type SpentLinks } from "./sessions";
export { GC_INTERVAL_MS, hourlyGcJob, startHourlyGc } from "./hourly-gc";
export { runRetentionGc, type ScheduledGcServices } from "./scheduled-gc";

/**
 * The inbox on the web's integrations, when `OPS_EMAILS` is set (the start made sure the link
 * secret, `SMTP_URL` and `EMAIL_FROM` are there too): sessions and spent links in Redis when it is
 * configured, else in the inbox store. The link signer and the mailer are the ones the visitors'
 * emails use, built once by the caller.
 */
export function createOpsServices(
  config: Config,
  store: ObjectStore,
  limiters: RateLimiters,
  { links, mailer }: { links: LinkSigner | null; mailer: VisitorMailer | null },
): OpsServices | null {
  if (!config.ops || !links || !mailer) return null;
  const shared = config.redis
    ? new RedisSessionStore(createRedisClient(config.redis))
    : new InboxSessionStore(store);
  return {
    emails: config.ops.emails,
    links,
    mailer,
    sessions: shared,
    spentLinks: shared,
    limits: { address: limiters.opsSignInAddress, client: limiters.opsSignInClient },
  };
}
