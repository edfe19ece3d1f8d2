import type { ProjectType } from "../schemas/brief";
import type { Mailbox, RateLimitRule } from "./values";

/** Human verification with Cloudflare Turnstile: on when both keys are set. */
export interface TurnstileSettings {
  secretKey: string;
  /** Public: the widget on each form is rendered with it. */
  siteKey: string;
  /** siteverify, or a proxy or test double in its place. */
  verifyUrl: string;
  /** The secret is one of Cloudflare's test keys: hostname and action are not checked. */
  testKeys: boolean;
}

/** `EMAIL_ROUTES`: the ops email's recipients by project type, in place of `EMAIL_TO`. */
export type EmailRoutes = Readonly<Partial<Record<ProjectType, readonly string[]>>>;

/** `SPAM_KEYWORDS` and `SPAM_EMAIL_DOMAINS`: briefs that match are kept under `spam/`. */
export interface SpamRules {
  /** Words or phrases as written, matched case-insensitively on word boundaries. */
  keywords: readonly string[];
  /** Each as written (what `spam.match` names) and in its compared form (`asciiDomain`). */
  domains: readonly { written: string; ascii: string }[];
}

export interface Config {
  siteOrigin: string;
  /** `SITE_NAME`: what the emails and the inbox call the site. */
  siteName: string;
  allowedOrigins: readonly string[];
  trustedProxyHops: number;
  /** `VERCEL` is set: the app runs on Vercel, whose edge writes `X-Forwarded-For` itself. */
  onVercel: boolean;
  inbox: { driver: "filesystem"; dir: string } | { driver: "vercel-blob"; token: string };
  redis: { url: string; token: string } | null;
  /** `upload`: upload tokens issued by `POST /api/contact/upload` (direct-to-Blob attachments). */
  rateLimits: { contact: RateLimitRule; newsletter: RateLimitRule; upload: RateLimitRule };
  webhook: { url: string; secret: string | null } | null;
  email: { smtpUrl: string; from: Mailbox; to: readonly string[] } | null;
  /** `EMAIL_ROUTES`; empty when unset (every ops email goes to `EMAIL_TO`). */
  emailRoutes: EmailRoutes;
  /** `SLACK_WEBHOOK_URL`: the Slack channel, or `null` when it is not set up. */
  slack: { url: string } | null;
  /** `null`: no rule beyond the honeypot. */
  spamRules: SpamRules | null;
  notifyTimeoutMs: number;
  /** `null`: not set: briefs get a random salt per process (with a warning), Redis keys a fixed key. */
  ipHashSalt: string | null;
  /** `null`: human verification is off. */
  turnstile: TurnstileSettings | null;
  /**
   * Emails to visitors (confirmations, acknowledgments): `SMTP_URL` and `EMAIL_FROM`, which is
   * all they need (`EMAIL_TO` is ops'). `null` when either is not set.
   */
  visitorEmail: { smtpUrl: string; from: Mailbox } | null;
  /** `LINK_SIGNING_SECRET`: the HMAC key of the links emailed to visitors; `null` when not set. */
  linkSigningSecret: string | null;
  /** `NEWSLETTER_DOUBLE_OPT_IN=true`: a subscription waits for the address to confirm it by email. */
  newsletterDoubleOptIn: boolean;
  /**
   * Where visitors may write to the studio: `EMAIL_REPLY_TO`, else the first `EMAIL_TO`; `null`
   * when neither is set. The acknowledgment's `Reply-To`, and the forms' way out when Turnstile's
   * script cannot load in a visitor's browser.
   */
  replyTo: Mailbox | null;
  /**
   * `CONTACT_ACKNOWLEDGE=true`: each brief's sender is emailed an acknowledgment. `replyTo` is
   * `EMAIL_REPLY_TO`, else the first `EMAIL_TO`; `null` when neither is set (no `Reply-To`).
   */
  acknowledgment: { replyTo: Mailbox | null } | null;
  /**
   * `DELIVERY_RETRY_SCHEDULE`: the waits (ms) before each retry of a failed channel, each counted
   * from the previous failure; `[]` (`off`): a failure is final.
   */
  retrySchedule: readonly number[];
  /**
   * Upstash QStash (`QSTASH_TOKEN` and both signing keys): every retry is published to it with its
   * delay; `null`: retries are made by this server (`after()`, the scheduler, the cron route).
   */
  qstash: { token: string; currentSigningKey: string; nextSigningKey: string; url: string | null } | null;
  /** `RETENTION_DAYS`: briefs and spam older than this many days are erased by gc; `null`: kept forever. */
  retentionDays: number | null;
  /** `CRON_SECRET`: the bearer token scheduled jobs (`/api/cron/*`) need; `null`: they answer 404. */
  cronSecret: string | null;
  /**
   * The inbox on the web (`OPS_EMAILS`): the addresses allowed to sign in, lowercased. `null`: off,
   * and every `/inbox` and `/api/ops` path answers 404.
   */
  ops: { emails: readonly string[] } | null;
  /** Human sentences about settings that are accepted but probably not what was meant. */
  warnings: readonly string[];
}
