import { isIPv4 } from "node:net";
import { z } from "zod";
import { VARIABLES, type VariableName } from "./config-variables";

/**
 * Every environment variable the service reads, parsed once. Nothing else in the code base
 * touches `process.env`: an integration that is not set up is an explicit `null` here, and a
 * malformed value throws a `ConfigError` naming the variable (at start, from `instrumentation.ts`).
 */

export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface RateLimitRule {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
  /** The rule as written, e.g. `5/10m`. */
  source: string;
}

const WINDOW_UNITS_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

export function parseRateLimitRule(source: string): RateLimitRule | null {
  const match = /^\s*(\d{1,9})\s*\/\s*(\d{1,6})\s*([smh])\s*$/.exec(source);
  if (!match) return null;
  const limit = Number(match[1]);
  const windowMs = Number(match[2]) * WINDOW_UNITS_MS[match[3] as keyof typeof WINDOW_UNITS_MS];
  if (limit < 1 || windowMs < 1_000) return null;
  return { limit, windowMs, source: source.trim() };
}

/** An unset variable and one set to the empty string (`FOO=` in a .env file) both mean "not set". */
const optional = z
  .string()
  .transform((value) => value.trim())
  .transform((value) => (value === "" ? undefined : value))
  .optional();

const httpUrl = (variable: string) =>
  z.string().transform((value, ctx) => {
    try {
      const url = new URL(value);
      if (url.protocol === "http:" || url.protocol === "https:") return url;
    } catch {}
    ctx.addIssue({ code: "custom", message: `${variable} must be an http(s) URL, got "${value}"` });
    return z.NEVER;
  });

const origin = (variable: string) => httpUrl(variable).transform((url) => url.origin);

const rateLimitRule = (variable: string) =>
  z.string().transform((value, ctx) => {
    const rule = parseRateLimitRule(value);
    if (rule) return rule;
    ctx.addIssue({
      code: "custom",
      message: `${variable} must look like <count>/<window> with the window in s, m or h (e.g. 5/10m), got "${value}"`,
    });
    return z.NEVER;
  });

const wholeNumber = (variable: string, min: number, max: number) =>
  z.string().transform((value, ctx) => {
    const number = Number(value);
    if (/^\d+$/.test(value) && number >= min && number <= max) return number;
    ctx.addIssue({
      code: "custom",
      message: `${variable} must be a whole number from ${min} to ${max}, got "${value}"`,
    });
    return z.NEVER;
  });

const list = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

const flag = (variable: string) =>
  z.string().transform((value, ctx) => {
    if (value === "true") return true;
    if (value === "false") return false;
    ctx.addIssue({ code: "custom", message: `${variable} must be true or false, got "${value}"` });
    return z.NEVER;
  });

/** The shortest `LINK_SIGNING_SECRET` taken: a key an attacker could guess would forge every link. */
export const LINK_SIGNING_SECRET_MIN_LENGTH = 32;

/** The shortest `CRON_SECRET` taken (Vercel asks for at least 16 random characters). */
export const CRON_SECRET_MIN_LENGTH = 16;

const smtpUrl = z.string().transform((value, ctx) => {
  try {
    const url = new URL(value);
    if (url.protocol === "smtp:" || url.protocol === "smtps:") return value;
  } catch {}
  ctx.addIssue({ code: "custom", message: `SMTP_URL must be an smtp:// or smtps:// URL` });
  return z.NEVER;
});

/**
 * How a connection to `SMTP_URL` is protected. One rule for every sender that uses the URL
 * (lib/notify/smtp.ts applies it), so that no login and no message crosses a network in cleartext:
 *
 * - `tls`: `smtps://`, TLS from the first byte.
 * - `starttls-required`: `smtp://` with credentials in the URL, or to a host that is not loopback:
 *   STARTTLS or nothing, whether the server does not offer it or an attacker strips it from its
 *   answer. Query options such as `ignoreTLS=true` cannot turn it off.
 * - `opted-out`: the same URL with `?requireTLS=false`: STARTTLS when offered, else cleartext.
 * - `starttls-optional`: a loopback relay without credentials (a local Mailpit): STARTTLS when
 *   offered, else cleartext that never leaves the machine.
 *
 * Loopback means `localhost`, 127.0.0.0/8 and `::1` as written in the URL; any other spelling
 * counts as another host (the safe side). `service` and `proxy` in the query send the connection
 * elsewhere (nodemailer reads both), so they never count as loopback either.
 */
export type SmtpTls = "tls" | "starttls-required" | "opted-out" | "starttls-optional";

export function smtpTls(smtpUrl: string): SmtpTls {
  const url = new URL(smtpUrl);
  if (url.protocol === "smtps:") return "tls";
  // The URL keeps an IPv6 host in brackets and, for a scheme it does not know, the case as written.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const loopback = host === "localhost" || host === "::1" || (isIPv4(host) && host.startsWith("127."));
  const elsewhere = url.searchParams.has("service") || url.searchParams.has("proxy");
  const credentials = url.username !== "" || url.password !== "";
  if (loopback && !elsewhere && !credentials) return "starttls-optional";
  // Exactly the spelling nodemailer turns into `false`; anything else keeps the requirement.
  const requireTls = url.searchParams.getAll("requireTLS");
  return requireTls.length === 1 && requireTls[0] === "false" ? "opted-out" : "starttls-required";
}

/**
 * `?tls.rejectUnauthorized=false` in the URL: nodemailer hands it to Node's TLS, which then takes
 * any certificate. Exactly the spelling nodemailer turns into `false` (a single value), which is
 * the only one Node honours.
 */
function skipsCertificateCheck(smtpUrl: string): boolean {
  const values = new URL(smtpUrl).searchParams.getAll("tls.rejectUnauthorized");
  return values.length === 1 && values[0] === "false";
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

/**
 * `WEBHOOK_SECRET` is read exactly as the `standardwebhooks` package reads it, on both ends: an
 * optional `whsec_` prefix, then standard padded base64 of the key bytes. A secret that does not
 * decode (a bare passphrase) is refused at start rather than used as raw bytes: a receiver passing
 * the same string to `new Webhook(secret)` could never verify what we signed with it.
 */
const WEBHOOK_SECRET_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The Standard Webhooks specification asks for 24 to 64 random bytes. */
const WEBHOOK_SECRET_MIN_BYTES = 24;

/** Decoded key length of a well-formed secret, or `null` when the library could not decode it. */
export function webhookSecretBytes(secret: string): number | null {
  const base64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  if (base64 === "" || !WEBHOOK_SECRET_BASE64.test(base64)) return null;
  return (base64.length / 4) * 3 - (base64.match(/=/g)?.length ?? 0);
}

/** A mailbox as nodemailer takes it: structured, so no header is ever built by concatenation. */
export interface Mailbox {
  /** Display name; empty when none was given. */
  name: string;
  address: string;
}

const isEmailAddress = (value: string) => z.email().safeParse(value).success;

/**
 * `intake@studio.example`, `Studio <intake@studio.example>` or `"Studio, Intake" <intake@...>`;
 * `null` when it is none of these or the display name holds control characters.
 */
export function parseMailbox(value: string): Mailbox | null {
  const named = /^([^<>]*)<([^<>]*)>$/.exec(value.trim());
  let name = named ? (named[1] ?? "").trim() : "";
  const address = (named ? (named[2] ?? "") : value).trim();
  const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(name);
  if (quoted) name = (quoted[1] ?? "").replace(/\\(.)/g, "$1");
  else if (name.includes('"')) return null;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name) || !isEmailAddress(address)) return null;
  return { name, address };
}

/** Read as raw strings first, so that each variable's own parser names it in its message. */
/** Every variable the service reads (`lib/config-variables.ts`), each as an optional string. */
const rawEnvSchema = z.object(
  Object.fromEntries(VARIABLES.map((variable) => [variable.name, optional])) as Record<
    VariableName,
    typeof optional
  >,
);

/** Cloudflare's siteverify endpoint, where Turnstile tokens are checked. */
export const TURNSTILE_SITEVERIFY_URL = "https://challenges.cloudflare.com/turnstile/v0/siteverify";

/**
 * Cloudflare's published test secret keys (always passes, always fails, "token already spent").
 * They accept only the test widgets' dummy token, and siteverify's answer to it names neither the
 * widget's action nor the site's hostname, so those two checks cannot apply.
 */
const TURNSTILE_TEST_SECRET_KEYS = new Set([
  "1x0000000000000000000000000000000AA",
  "2x0000000000000000000000000000000AA",
  "3x0000000000000000000000000000000AA",
]);

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

export interface Config {
  siteOrigin: string;
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

export function parseConfig(env: Record<string, string | undefined>): Config {
  const raw = rawEnvSchema.parse(env);
  const problems: string[] = [];
  const warnings: string[] = [];

  function read<T>(value: string | undefined, schema: z.ZodType<T, string>, fallback: T): T {
    if (value === undefined) return fallback;
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    problems.push(...result.error.issues.map((issue) => issue.message));
    return fallback;
  }

  const siteOrigin = read(raw.SITE_URL, origin("SITE_URL"), "http://localhost:3000");
  const allowedOrigins = raw.ALLOWED_ORIGINS
    ? list(raw.ALLOWED_ORIGINS).map((item) => read(item, origin("ALLOWED_ORIGINS"), ""))
    : [];
  const trustedProxyHops = read(raw.TRUSTED_PROXY_HOPS, wholeNumber("TRUSTED_PROXY_HOPS", 0, 32), 1);
  const notifyTimeoutMs = read(raw.NOTIFY_TIMEOUT_MS, wholeNumber("NOTIFY_TIMEOUT_MS", 1, 600_000), 5_000);
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

  let webhook: Config["webhook"] = null;
  if (raw.WEBHOOK_URL) {
    const url = read(raw.WEBHOOK_URL, httpUrl("WEBHOOK_URL"), null);
    const secret = raw.WEBHOOK_SECRET ?? null;
    const secretBytes = secret === null ? null : webhookSecretBytes(secret);
    if (secret !== null && secretBytes === null) {
      problems.push(
        "WEBHOOK_SECRET must be a Standard Webhooks secret: whsec_ followed by base64 (e.g. whsec_$(openssl rand -base64 32))",
      );
    } else if (secretBytes !== null && secretBytes < WEBHOOK_SECRET_MIN_BYTES) {
      warnings.push(
        `WEBHOOK_SECRET is ${secretBytes} bytes; Standard Webhooks asks for 24 to 64 random bytes`,
      );
    }
    if (url) webhook = { url: url.href, secret };
  } else if (raw.WEBHOOK_SECRET) {
    warnings.push("WEBHOOK_SECRET is set without WEBHOOK_URL: the webhook channel is not configured");
  }

  const newsletterDoubleOptIn = read(raw.NEWSLETTER_DOUBLE_OPT_IN, flag("NEWSLETTER_DOUBLE_OPT_IN"), false);
  // Features that email visitors: each needs SMTP_URL and EMAIL_FROM (not EMAIL_TO).
  const contactAcknowledge = read(raw.CONTACT_ACKNOWLEDGE, flag("CONTACT_ACKNOWLEDGE"), false);
  const visitorEmailFeatures = [
    ...(newsletterDoubleOptIn ? ["NEWSLETTER_DOUBLE_OPT_IN=true"] : []),
    ...(contactAcknowledge ? ["CONTACT_ACKNOWLEDGE=true"] : []),
  ];

  let email: Config["email"] = null;
  const emailVariables = { SMTP_URL: raw.SMTP_URL, EMAIL_FROM: raw.EMAIL_FROM, EMAIL_TO: raw.EMAIL_TO };
  const missingEmail = Object.entries(emailVariables).filter(([, value]) => !value);
  // Checked whenever set, like WEBHOOK_URL: a malformed value stops the start even before the
  // channel's other variables are filled in.
  const smtp = read(raw.SMTP_URL, smtpUrl, null);
  if (smtp && skipsCertificateCheck(smtp)) {
    warnings.push(
      "SMTP_URL has tls.rejectUnauthorized=false: the SMTP server's certificate is not checked, so anyone on the way can pose as the server and read the login and every email",
    );
  }
  const from = raw.EMAIL_FROM ? parseMailbox(raw.EMAIL_FROM) : null;
  const emailsSomeone = visitorEmailFeatures.length > 0 || Boolean(raw.OPS_EMAILS);
  if (raw.EMAIL_FROM && !from && (missingEmail.length === 0 || emailsSomeone)) {
    problems.push(
      `EMAIL_FROM must be an address, optionally with a display name (Studio <intake@studio.example>), got "${raw.EMAIL_FROM}"`,
    );
  }
  for (const feature of visitorEmailFeatures) {
    const missing = ["SMTP_URL", "EMAIL_FROM"].filter((name) => !raw[name as "SMTP_URL" | "EMAIL_FROM"]);
    if (missing.length > 0) {
      problems.push(
        `${feature} emails visitors, so it needs SMTP_URL and EMAIL_FROM: ${missing.join(" and ")} not set`,
      );
    }
  }
  if (missingEmail.length === 0) {
    const to = list(raw.EMAIL_TO ?? "");
    const invalidTo = to.filter((address) => !isEmailAddress(address));
    if (to.length === 0) problems.push("EMAIL_TO must list at least one address");
    else if (invalidTo.length > 0) {
      problems.push(`EMAIL_TO must be a comma-separated list of addresses; not one: ${invalidTo.join(", ")}`);
    }
    if (smtp && from && to.length > 0 && invalidTo.length === 0) email = { smtpUrl: smtp, from, to };
    if (smtp && smtpTls(smtp) === "opted-out") {
      warnings.push(
        "SMTP_URL has requireTLS=false: the SMTP login and every brief go in cleartext whenever the server does not offer STARTTLS (or someone on the way strips it)",
      );
    }
  } else if (missingEmail.length < 3) {
    warnings.push(
      `The email channel is not configured: ${missingEmail.map(([name]) => name).join(", ")} not set`,
    );
  }

  let turnstile: Config["turnstile"] = null;
  const verifyUrl = read(raw.TURNSTILE_VERIFY_URL, httpUrl("TURNSTILE_VERIFY_URL"), null);
  if (raw.TURNSTILE_SECRET_KEY && raw.TURNSTILE_SITE_KEY) {
    const testKeys = TURNSTILE_TEST_SECRET_KEYS.has(raw.TURNSTILE_SECRET_KEY);
    turnstile = {
      secretKey: raw.TURNSTILE_SECRET_KEY,
      siteKey: raw.TURNSTILE_SITE_KEY,
      verifyUrl: verifyUrl?.href ?? TURNSTILE_SITEVERIFY_URL,
      testKeys,
    };
    if (testKeys) {
      warnings.push(
        "TURNSTILE_SECRET_KEY is one of Cloudflare's test keys: no visitor is really checked (for local use only)",
      );
    }
  } else if (raw.TURNSTILE_SECRET_KEY || raw.TURNSTILE_SITE_KEY) {
    // Half a configuration would either check nothing or refuse every visitor: stop instead.
    const missing = raw.TURNSTILE_SECRET_KEY ? "TURNSTILE_SITE_KEY" : "TURNSTILE_SECRET_KEY";
    problems.push(
      `${missing} is not set: TURNSTILE_SECRET_KEY and TURNSTILE_SITE_KEY turn human verification on together`,
    );
  } else if (raw.TURNSTILE_VERIFY_URL) {
    warnings.push(
      "TURNSTILE_VERIFY_URL is set without TURNSTILE_SECRET_KEY and TURNSTILE_SITE_KEY: human verification is off",
    );
  }

  if (contactAcknowledge && !(raw.TURNSTILE_SECRET_KEY && raw.TURNSTILE_SITE_KEY)) {
    // Without a check that a person sent the form, anyone could aim the acknowledgment at any address.
    problems.push(
      "CONTACT_ACKNOWLEDGE=true emails whatever address the form names, so it needs human verification: TURNSTILE_SECRET_KEY and TURNSTILE_SITE_KEY must both be set",
    );
  }

  const replyTo = raw.EMAIL_REPLY_TO ? parseMailbox(raw.EMAIL_REPLY_TO) : null;
  if (raw.EMAIL_REPLY_TO && !replyTo) {
    problems.push(
      `EMAIL_REPLY_TO must be an address, optionally with a display name (Studio <hello@studio.example>), got "${raw.EMAIL_REPLY_TO}"`,
    );
  } else if (raw.EMAIL_REPLY_TO && !contactAcknowledge && !turnstile) {
    warnings.push(
      "EMAIL_REPLY_TO is set without CONTACT_ACKNOWLEDGE=true or human verification: nothing uses it",
    );
  }
  const firstTo = email?.to[0];
  const studioReplyTo = replyTo ?? (firstTo ? { name: "", address: firstTo } : null);
  const acknowledgment: Config["acknowledgment"] = contactAcknowledge ? { replyTo: studioReplyTo } : null;

  const linkSigningSecret = raw.LINK_SIGNING_SECRET ?? null;
  if (linkSigningSecret !== null && [...linkSigningSecret].length < LINK_SIGNING_SECRET_MIN_LENGTH) {
    problems.push(
      `LINK_SIGNING_SECRET must be at least ${LINK_SIGNING_SECRET_MIN_LENGTH} characters (e.g. openssl rand -base64 32)`,
    );
  }
  if (newsletterDoubleOptIn && linkSigningSecret === null) {
    problems.push(
      "NEWSLETTER_DOUBLE_OPT_IN=true signs the links it emails, so it needs LINK_SIGNING_SECRET (at least 32 characters, e.g. openssl rand -base64 32): not set",
    );
  }

  const cronSecret = raw.CRON_SECRET ?? null;
  if (cronSecret !== null && [...cronSecret].length < CRON_SECRET_MIN_LENGTH) {
    problems.push(
      `CRON_SECRET must be at least ${CRON_SECRET_MIN_LENGTH} characters (e.g. openssl rand -base64 32)`,
    );
  }

  let ops: Config["ops"] = null;
  if (raw.OPS_EMAILS) {
    const emails = list(raw.OPS_EMAILS).map((address) => address.toLowerCase());
    const invalid = emails.filter((address) => !isEmailAddress(address));
    if (emails.length === 0 || invalid.length > 0) {
      problems.push(
        `OPS_EMAILS must be a comma-separated list of addresses${invalid.length > 0 ? `; not one: ${invalid.join(", ")}` : ""}`,
      );
    }
    // Sign-in links are signed and emailed: without these the inbox could never be opened.
    const missing = [
      ...(linkSigningSecret === null ? ["LINK_SIGNING_SECRET (at least 32 characters)"] : []),
      ...(raw.SMTP_URL ? [] : ["SMTP_URL"]),
      ...(raw.EMAIL_FROM ? [] : ["EMAIL_FROM"]),
    ];
    if (missing.length > 0) {
      problems.push(
        `OPS_EMAILS turns on the inbox on the web, which emails signed sign-in links: ${missing.join(", ")} not set`,
      );
    }
    ops = { emails: [...new Set(emails)] };
  }

  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${problems.map((line) => `  - ${line}`).join("\n")}`);
  }

  return {
    siteOrigin,
    allowedOrigins,
    trustedProxyHops,
    onVercel: raw.VERCEL !== undefined,
    inbox: raw.BLOB_READ_WRITE_TOKEN
      ? { driver: "vercel-blob", token: raw.BLOB_READ_WRITE_TOKEN }
      : { driver: "filesystem", dir: raw.INBOX_DIR ?? ".data/inbox" },
    redis,
    rateLimits: { contact, newsletter, upload },
    webhook,
    email,
    notifyTimeoutMs,
    ipHashSalt: raw.IP_HASH_SALT ?? null,
    turnstile,
    visitorEmail: smtp && from ? { smtpUrl: smtp, from } : null,
    linkSigningSecret,
    newsletterDoubleOptIn,
    replyTo: studioReplyTo,
    acknowledgment,
    cronSecret,
    ops,
    warnings,
  };
}

let cached: Config | undefined;

/** The process's configuration, parsed on first use (at start, through `instrumentation.ts`). */
export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
