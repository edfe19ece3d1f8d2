import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  parseConfig,
  parseMailbox,
  parseRateLimitRule,
  proxyHopsWarning,
  type SmtpTls,
  smtpTls,
  webhookSecretBytes,
} from "@/lib/config";
import { VARIABLES as VARIABLE_LIST } from "@/lib/config/variables";

type Env = Record<string, string | undefined>;

/** Every variable the service reads: the one list in lib/config/variables.ts. */
const VARIABLES = VARIABLE_LIST.map((variable) => variable.name);

const DEFAULTS = {
  siteOrigin: "http://localhost:3000",
  siteName: "Northwind Studio",
  allowedOrigins: [],
  trustedProxyHops: 1,
  onVercel: false,
  inbox: { driver: "filesystem", dir: ".data/inbox" },
  redis: null,
  rateLimits: {
    contact: { limit: 5, windowMs: 600_000 },
    newsletter: { limit: 10, windowMs: 600_000 },
    upload: { limit: 10, windowMs: 600_000 },
  },
  webhook: null,
  email: null,
  notifyTimeoutMs: 5_000,
  ipHashSalt: null,
  turnstile: null,
  visitorEmail: null,
  linkSigningSecret: null,
  newsletterDoubleOptIn: false,
  acknowledgment: null,
  cronSecret: null,
  ops: null,
  warnings: [],
};

/** 32 bytes, the form `standardwebhooks` and most providers hand out. */
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=";

const EMAIL_ENV = {
  SMTP_URL: "smtp://user:pass@mail.example:587",
  EMAIL_FROM: "Studio <intake@studio.example>",
  EMAIL_TO: "a@x.com, b@x.com",
};

/** The ConfigError thrown for `env`; fails the test when parsing succeeds or throws anything else. */
function configError(env: Env): ConfigError {
  try {
    parseConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`parseConfig accepted ${JSON.stringify(env)}`);
}

describe("parseConfig defaults", () => {
  it.each<[string, Env]>([
    ["an empty env", {}],
    ["every variable set to the empty string", Object.fromEntries(VARIABLES.map((name) => [name, ""]))],
    ["every variable blank", Object.fromEntries(VARIABLES.map((name) => [name, "  "]))],
    ["unrelated variables only", { PATH: "/usr/bin", NODE_ENV: "production", HOME: "/root" }],
  ])("%s gives the defaults", (_label, env) => {
    expect(parseConfig(env)).toMatchObject(DEFAULTS);
  });

  it("default rate limits carry their written form", () => {
    const { rateLimits } = parseConfig({});
    expect(rateLimits.contact.source).toBe("5/10m");
    expect(rateLimits.newsletter.source).toBe("10/10m");
    expect(rateLimits.upload.source).toBe("10/10m");
  });
});

describe("parseConfig values", () => {
  it.each<[string, Env, Record<string, unknown>]>([
    [
      "SITE_URL with a path",
      { SITE_URL: "https://studio.example/some/path" },
      { siteOrigin: "https://studio.example" },
    ],
    ["SITE_URL with a port", { SITE_URL: "http://localhost:8080" }, { siteOrigin: "http://localhost:8080" }],
    ["SITE_URL padded", { SITE_URL: "  https://studio.example  " }, { siteOrigin: "https://studio.example" }],
    ["SITE_NAME", { SITE_NAME: "  Acme Rockets  " }, { siteName: "Acme Rockets" }],
    ["SITE_NAME of 80 characters", { SITE_NAME: "A".repeat(80) }, { siteName: "A".repeat(80) }],
    [
      "SITE_NAME in any script",
      { SITE_NAME: "Bäckerei Müller · 東京" },
      { siteName: "Bäckerei Müller · 東京" },
    ],
    [
      "ALLOWED_ORIGINS",
      { ALLOWED_ORIGINS: "https://a.example, https://b.example/path" },
      { allowedOrigins: ["https://a.example", "https://b.example"] },
    ],
    [
      "ALLOWED_ORIGINS with empty items",
      { ALLOWED_ORIGINS: ",https://a.example,, " },
      { allowedOrigins: ["https://a.example"] },
    ],
    ["TRUSTED_PROXY_HOPS=0", { TRUSTED_PROXY_HOPS: "0" }, { trustedProxyHops: 0 }],
    ["TRUSTED_PROXY_HOPS=2", { TRUSTED_PROXY_HOPS: "2" }, { trustedProxyHops: 2 }],
    ["VERCEL=1", { VERCEL: "1" }, { onVercel: true }],
    [
      "INBOX_DIR",
      { INBOX_DIR: "/var/lib/intake" },
      { inbox: { driver: "filesystem", dir: "/var/lib/intake" } },
    ],
    [
      "BLOB_READ_WRITE_TOKEN",
      { BLOB_READ_WRITE_TOKEN: "vercel_blob_rw_K3bQaD4bnl8XyZ_2rVfo5k2sKd9PpQ" },
      { inbox: { driver: "vercel-blob", token: "vercel_blob_rw_K3bQaD4bnl8XyZ_2rVfo5k2sKd9PpQ" } },
    ],
    [
      "BLOB_READ_WRITE_TOKEN wins over INBOX_DIR",
      { BLOB_READ_WRITE_TOKEN: "vercel_blob_rw_store1_secret", INBOX_DIR: "/srv/inbox" },
      { inbox: { driver: "vercel-blob", token: "vercel_blob_rw_store1_secret" } },
    ],
    [
      "Upstash URL and token",
      { UPSTASH_REDIS_REST_URL: "https://eu1.upstash.io", UPSTASH_REDIS_REST_TOKEN: "secret" },
      { redis: { url: "https://eu1.upstash.io", token: "secret" } },
    ],
    [
      "CONTACT_RATE_LIMIT",
      { CONTACT_RATE_LIMIT: "3/30s" },
      {
        rateLimits: { contact: { limit: 3, windowMs: 30_000 }, newsletter: { limit: 10, windowMs: 600_000 } },
      },
    ],
    [
      "NEWSLETTER_RATE_LIMIT",
      { NEWSLETTER_RATE_LIMIT: "100/1h" },
      {
        rateLimits: {
          contact: { limit: 5, windowMs: 600_000 },
          newsletter: { limit: 100, windowMs: 3_600_000 },
        },
      },
    ],
    [
      "UPLOAD_RATE_LIMIT",
      { UPLOAD_RATE_LIMIT: "20/5m" },
      {
        rateLimits: {
          contact: { limit: 5, windowMs: 600_000 },
          newsletter: { limit: 10, windowMs: 600_000 },
          upload: { limit: 20, windowMs: 300_000 },
        },
      },
    ],
    [
      "WEBHOOK_URL alone",
      { WEBHOOK_URL: "https://hooks.example/intake" },
      { webhook: { url: "https://hooks.example/intake", secret: null } },
    ],
    [
      "WEBHOOK_URL with a secret",
      { WEBHOOK_URL: "https://hooks.example/intake", WEBHOOK_SECRET: SECRET },
      { webhook: { url: "https://hooks.example/intake", secret: SECRET } },
    ],
    ["NOTIFY_TIMEOUT_MS", { NOTIFY_TIMEOUT_MS: "2500" }, { notifyTimeoutMs: 2500 }],
    ["IP_HASH_SALT", { IP_HASH_SALT: "pepper" }, { ipHashSalt: "pepper" }],
    ["RETENTION_DAYS unset: kept forever", {}, { retentionDays: null }],
    ["RETENTION_DAYS", { RETENTION_DAYS: "365" }, { retentionDays: 365 }],
  ])("%s", (_label, env, expected) => {
    expect(parseConfig(env)).toMatchObject({ ...expected, warnings: [] });
  });
});

describe("parseConfig refuses malformed values, naming the variable", () => {
  it.each<[Env, string]>([
    [{ SITE_URL: "not a url" }, "SITE_URL"],
    [{ SITE_URL: "ftp://studio.example" }, "SITE_URL"],
    // A subject is a header line: a name that could end it, or read otherwise than written, is refused.
    [{ SITE_NAME: "Acme\r\nBcc: victim@example.com" }, "SITE_NAME"],
    [{ SITE_NAME: "Acme\u0000" }, "SITE_NAME"],
    [{ SITE_NAME: "Acme \u202eskcoR" }, "SITE_NAME"],
    [{ SITE_NAME: "A".repeat(81) }, "SITE_NAME"],
    [{ TRUSTED_PROXY_HOPS: "-1" }, "TRUSTED_PROXY_HOPS"],
    [{ TRUSTED_PROXY_HOPS: "abc" }, "TRUSTED_PROXY_HOPS"],
    [{ TRUSTED_PROXY_HOPS: "1.5" }, "TRUSTED_PROXY_HOPS"],
    [{ CONTACT_RATE_LIMIT: "5 per minute" }, "CONTACT_RATE_LIMIT"],
    [{ CONTACT_RATE_LIMIT: "0/1m" }, "CONTACT_RATE_LIMIT"],
    [{ CONTACT_RATE_LIMIT: "5/0m" }, "CONTACT_RATE_LIMIT"],
    [{ NEWSLETTER_RATE_LIMIT: "x" }, "NEWSLETTER_RATE_LIMIT"],
    [{ UPLOAD_RATE_LIMIT: "10/10 minutes" }, "UPLOAD_RATE_LIMIT"],
    [{ NOTIFY_TIMEOUT_MS: "0" }, "NOTIFY_TIMEOUT_MS"],
    [{ NOTIFY_TIMEOUT_MS: "fast" }, "NOTIFY_TIMEOUT_MS"],
    [{ RETENTION_DAYS: "0" }, "RETENTION_DAYS"],
    [{ RETENTION_DAYS: "30d" }, "RETENTION_DAYS"],
    [{ RETENTION_DAYS: "-1" }, "RETENTION_DAYS"],
    [{ RETENTION_DAYS: "36501" }, "RETENTION_DAYS"],
    [{ WEBHOOK_URL: "ftp://x" }, "WEBHOOK_URL"],
    [{ WEBHOOK_URL: "not a url" }, "WEBHOOK_URL"],
    [{ ...EMAIL_ENV, SMTP_URL: "http://x" }, "SMTP_URL"],
    [{ SMTP_URL: "http://x" }, "SMTP_URL"],
    [{ ...EMAIL_ENV, EMAIL_TO: " , ," }, "EMAIL_TO"],
    [{ ...EMAIL_ENV, EMAIL_TO: "ops@studio.example, not an address" }, "EMAIL_TO"],
    [{ ...EMAIL_ENV, EMAIL_TO: "Ops <ops@studio.example>" }, "EMAIL_TO"],
    [{ ...EMAIL_ENV, EMAIL_FROM: "intake" }, "EMAIL_FROM"],
    [{ ...EMAIL_ENV, EMAIL_FROM: "Studio <intake@studio.example" }, "EMAIL_FROM"],
    [{ WEBHOOK_URL: "https://hooks.example", WEBHOOK_SECRET: "my shared passphrase" }, "WEBHOOK_SECRET"],
    [{ WEBHOOK_URL: "https://hooks.example", WEBHOOK_SECRET: "whsec_abc" }, "WEBHOOK_SECRET"],
    [{ ALLOWED_ORIGINS: "https://a.example, not a url" }, "ALLOWED_ORIGINS"],
    [{ ALLOWED_ORIGINS: "https://a.example, ftp://b.example" }, "ALLOWED_ORIGINS"],
    [{ BLOB_READ_WRITE_TOKEN: "tok" }, "BLOB_READ_WRITE_TOKEN"],
    [{ BLOB_READ_WRITE_TOKEN: "vercel_blob_rw_abc" }, "BLOB_READ_WRITE_TOKEN"],
    [{ BLOB_READ_WRITE_TOKEN: "vercel_blob_rw__secret" }, "BLOB_READ_WRITE_TOKEN"],
    [{ BLOB_READ_WRITE_TOKEN: "vercel_blob_rw_store-1_secret" }, "BLOB_READ_WRITE_TOKEN"],
    [{ UPSTASH_REDIS_REST_URL: "https://eu1.upstash.io" }, "UPSTASH_REDIS_REST_TOKEN"],
    [{ UPSTASH_REDIS_REST_TOKEN: "secret" }, "UPSTASH_REDIS_REST_URL"],
    [{ UPSTASH_REDIS_REST_URL: "not a url", UPSTASH_REDIS_REST_TOKEN: "secret" }, "UPSTASH_REDIS_REST_URL"],
  ])("%j -> ConfigError naming %s", (env, variable) => {
    expect(configError(env).message).toContain(variable);
  });

  it("names every malformed variable in one error", () => {
    const { message } = configError({
      SITE_URL: "nope",
      CONTACT_RATE_LIMIT: "lots",
      NOTIFY_TIMEOUT_MS: "-5",
    });
    for (const variable of ["SITE_URL", "CONTACT_RATE_LIMIT", "NOTIFY_TIMEOUT_MS"]) {
      expect(message).toContain(variable);
    }
  });
});

describe("parseRateLimitRule", () => {
  it.each([
    ["5/10m", 5, 600_000],
    ["100/1h", 100, 3_600_000],
    ["3/30s", 3, 30_000],
    [" 5 / 10m ", 5, 600_000],
    ["1/1s", 1, 1_000],
    ["10/10m", 10, 600_000],
    ["2/24h", 2, 86_400_000],
  ])("%j -> %i per %i ms", (source, limit, windowMs) => {
    expect(parseRateLimitRule(source)).toEqual({ limit, windowMs, source: source.trim() });
  });

  it.each([
    ["5 per minute"],
    ["0/1m"],
    ["5/0m"],
    ["5/0s"],
    ["x"],
    [""],
    ["5"],
    ["5/10"],
    ["5/m"],
    ["/10m"],
    ["5/10d"],
    ["-1/1m"],
    ["5/-1m"],
    ["5/1.5m"],
    ["5.5/10m"],
    ["5/10m/1h"],
  ])("%j -> null", (source) => {
    expect(parseRateLimitRule(source)).toBeNull();
  });
});

describe("email channel", () => {
  it("is configured when SMTP_URL, EMAIL_FROM and EMAIL_TO are all set", () => {
    const config = parseConfig(EMAIL_ENV);
    expect(config.email).toEqual({
      smtpUrl: EMAIL_ENV.SMTP_URL,
      from: { name: "Studio", address: "intake@studio.example" },
      to: ["a@x.com", "b@x.com"],
    });
    expect(config.warnings).toEqual([]);
  });

  it.each([
    ["a@x.com", ["a@x.com"]],
    ["a@x.com,b@x.com", ["a@x.com", "b@x.com"]],
    ["  a@x.com ,  b@x.com  , ", ["a@x.com", "b@x.com"]],
  ])("EMAIL_TO %j -> %j", (to, expected) => {
    expect(parseConfig({ ...EMAIL_ENV, EMAIL_TO: to }).email?.to).toEqual(expected);
  });

  it("accepts smtps://", () => {
    expect(parseConfig({ ...EMAIL_ENV, SMTP_URL: "smtps://mail.example:465" }).email?.smtpUrl).toBe(
      "smtps://mail.example:465",
    );
  });

  const partials: [string, Env, string[]][] = [
    ["SMTP_URL only", { SMTP_URL: EMAIL_ENV.SMTP_URL }, ["EMAIL_FROM", "EMAIL_TO"]],
    ["EMAIL_FROM only", { EMAIL_FROM: EMAIL_ENV.EMAIL_FROM }, ["SMTP_URL", "EMAIL_TO"]],
    ["EMAIL_TO only", { EMAIL_TO: EMAIL_ENV.EMAIL_TO }, ["SMTP_URL", "EMAIL_FROM"]],
    ["no EMAIL_TO", { SMTP_URL: EMAIL_ENV.SMTP_URL, EMAIL_FROM: EMAIL_ENV.EMAIL_FROM }, ["EMAIL_TO"]],
    ["no EMAIL_FROM", { SMTP_URL: EMAIL_ENV.SMTP_URL, EMAIL_TO: EMAIL_ENV.EMAIL_TO }, ["EMAIL_FROM"]],
    ["no SMTP_URL", { EMAIL_FROM: EMAIL_ENV.EMAIL_FROM, EMAIL_TO: EMAIL_ENV.EMAIL_TO }, ["SMTP_URL"]],
    ["EMAIL_TO empty", { ...EMAIL_ENV, EMAIL_TO: "" }, ["EMAIL_TO"]],
  ];

  it.each(partials)(
    "partial config (%s) -> null with a warning naming what is missing",
    (_label, env, missing) => {
      const config = parseConfig(env);
      expect(config.email).toBeNull();
      expect(config.warnings).toHaveLength(1);
      for (const variable of missing) expect(config.warnings[0]).toContain(variable);
    },
  );
});

describe("newsletter double opt-in and emails to visitors", () => {
  const LINK_SECRET = "0123456789abcdef0123456789abcdef"; // exactly 32 characters
  const OPT_IN = {
    NEWSLETTER_DOUBLE_OPT_IN: "true",
    SMTP_URL: EMAIL_ENV.SMTP_URL,
    EMAIL_FROM: EMAIL_ENV.EMAIL_FROM,
    LINK_SIGNING_SECRET: LINK_SECRET,
  };

  it("is on with SMTP_URL, EMAIL_FROM and LINK_SIGNING_SECRET; EMAIL_TO is not needed", () => {
    const config = parseConfig(OPT_IN);
    expect(config).toMatchObject({
      newsletterDoubleOptIn: true,
      linkSigningSecret: LINK_SECRET,
      visitorEmail: {
        smtpUrl: EMAIL_ENV.SMTP_URL,
        from: { name: "Studio", address: "intake@studio.example" },
      },
      email: null,
    });
    // Only the ops channel's own note: it needs EMAIL_TO, double opt-in does not.
    expect(config.warnings).toEqual([expect.stringContaining("EMAIL_TO")]);
  });

  it.each([["false"], [""]])("NEWSLETTER_DOUBLE_OPT_IN=%j is off, and needs nothing", (value) => {
    expect(parseConfig({ NEWSLETTER_DOUBLE_OPT_IN: value }).newsletterDoubleOptIn).toBe(false);
  });

  it("visitorEmail is set whenever SMTP_URL and EMAIL_FROM are, and the ops channel keeps EMAIL_TO", () => {
    const config = parseConfig(EMAIL_ENV);
    expect(config.visitorEmail).toEqual({ smtpUrl: EMAIL_ENV.SMTP_URL, from: config.email?.from });
    expect(config.email?.to).toEqual(["a@x.com", "b@x.com"]);
  });

  it.each<[string, Env, string[]]>([
    [
      "NEWSLETTER_DOUBLE_OPT_IN=yes",
      { ...OPT_IN, NEWSLETTER_DOUBLE_OPT_IN: "yes" },
      ["NEWSLETTER_DOUBLE_OPT_IN"],
    ],
    ["no SMTP_URL", { ...OPT_IN, SMTP_URL: undefined }, ["NEWSLETTER_DOUBLE_OPT_IN", "SMTP_URL not set"]],
    [
      "no EMAIL_FROM",
      { ...OPT_IN, EMAIL_FROM: undefined },
      ["NEWSLETTER_DOUBLE_OPT_IN", "EMAIL_FROM not set"],
    ],
    [
      "neither",
      { ...OPT_IN, SMTP_URL: undefined, EMAIL_FROM: "" },
      ["NEWSLETTER_DOUBLE_OPT_IN", "SMTP_URL and EMAIL_FROM not set"],
    ],
    ["no LINK_SIGNING_SECRET", { ...OPT_IN, LINK_SIGNING_SECRET: undefined }, ["LINK_SIGNING_SECRET"]],
    ["a malformed EMAIL_FROM", { ...OPT_IN, EMAIL_FROM: "intake" }, ["EMAIL_FROM"]],
    ["a malformed SMTP_URL", { ...OPT_IN, SMTP_URL: "http://mail.example" }, ["SMTP_URL"]],
    [
      "a 31-character secret",
      { ...OPT_IN, LINK_SIGNING_SECRET: LINK_SECRET.slice(1) },
      ["LINK_SIGNING_SECRET"],
    ],
    ["a short secret without double opt-in", { LINK_SIGNING_SECRET: "short" }, ["LINK_SIGNING_SECRET"]],
  ])("stops the start naming what is missing or malformed: %s", (_label, env, expected) => {
    const { message } = configError(env);
    for (const text of expected) expect(message).toContain(text);
  });

  it("counts the secret's characters, not its bytes", () => {
    expect(() => parseConfig({ LINK_SIGNING_SECRET: "é".repeat(31) })).toThrow(ConfigError);
    expect(parseConfig({ LINK_SIGNING_SECRET: "é".repeat(32) }).linkSigningSecret).toBe("é".repeat(32));
  });

  it("leaves part 1 as it was: a malformed EMAIL_FROM without EMAIL_TO, double opt-in off, only warns", () => {
    const config = parseConfig({ SMTP_URL: EMAIL_ENV.SMTP_URL, EMAIL_FROM: "intake" });
    expect(config.email).toBeNull();
    expect(config.visitorEmail).toBeNull();
    expect(config.warnings).toEqual([expect.stringContaining("EMAIL_TO")]);
  });
});

describe("acknowledgment to the submitter", () => {
  const TURNSTILE = { TURNSTILE_SECRET_KEY: "0x4AAAAAAA-secret", TURNSTILE_SITE_KEY: "0x4AAAAAAA-site" };
  const ACK = {
    CONTACT_ACKNOWLEDGE: "true",
    SMTP_URL: EMAIL_ENV.SMTP_URL,
    EMAIL_FROM: EMAIL_ENV.EMAIL_FROM,
    ...TURNSTILE,
  };

  it("Reply-To is EMAIL_REPLY_TO, else the first EMAIL_TO, else none", () => {
    expect(parseConfig({ ...ACK, EMAIL_REPLY_TO: "Hello <hello@studio.example>" }).acknowledgment).toEqual({
      replyTo: { name: "Hello", address: "hello@studio.example" },
    });
    expect(parseConfig({ ...ACK, EMAIL_TO: EMAIL_ENV.EMAIL_TO }).acknowledgment).toEqual({
      replyTo: { name: "", address: "a@x.com" },
    });
    expect(parseConfig(ACK).acknowledgment).toEqual({ replyTo: null });
  });

  it.each([["false"], [""], [undefined]])("CONTACT_ACKNOWLEDGE=%j is off, and needs nothing", (value) => {
    expect(parseConfig({ CONTACT_ACKNOWLEDGE: value }).acknowledgment).toBeNull();
  });

  it.each<[string, Env, string[]]>([
    ["CONTACT_ACKNOWLEDGE=yes", { ...ACK, CONTACT_ACKNOWLEDGE: "yes" }, ["CONTACT_ACKNOWLEDGE"]],
    ["no SMTP_URL", { ...ACK, SMTP_URL: undefined }, ["CONTACT_ACKNOWLEDGE", "SMTP_URL not set"]],
    ["no EMAIL_FROM", { ...ACK, EMAIL_FROM: undefined }, ["CONTACT_ACKNOWLEDGE", "EMAIL_FROM not set"]],
    ["a malformed EMAIL_FROM", { ...ACK, EMAIL_FROM: "intake" }, ["EMAIL_FROM"]],
    ["a malformed EMAIL_REPLY_TO", { ...ACK, EMAIL_REPLY_TO: "hello" }, ["EMAIL_REPLY_TO"]],
    [
      "no Turnstile",
      { ...ACK, TURNSTILE_SECRET_KEY: undefined, TURNSTILE_SITE_KEY: undefined },
      ["CONTACT_ACKNOWLEDGE=true", "human verification", "TURNSTILE_SECRET_KEY", "TURNSTILE_SITE_KEY"],
    ],
    [
      "half of Turnstile",
      { ...ACK, TURNSTILE_SITE_KEY: undefined },
      ["CONTACT_ACKNOWLEDGE=true", "human verification", "TURNSTILE_SITE_KEY"],
    ],
  ])("stops the start naming what is missing or malformed: %s", (_label, env, expected) => {
    const { message } = configError(env);
    for (const text of expected) expect(message).toContain(text);
  });

  it("warns when EMAIL_REPLY_TO is set with the acknowledgment off", () => {
    expect(parseConfig({ EMAIL_REPLY_TO: "hello@studio.example" }).warnings).toEqual([
      expect.stringContaining("CONTACT_ACKNOWLEDGE"),
    ]);
  });
});

describe("smtpTls: how an SMTP_URL's connection is protected", () => {
  it.each<[string, SmtpTls]>([
    // smtps:// is TLS from the first byte, whatever the query says.
    ["smtps://user:pass@mail.example:465", "tls"],
    ["smtps://mail.example", "tls"],
    ["smtps://127.0.0.1:465", "tls"],
    ["smtps://user:pass@mail.example:465?requireTLS=false", "tls"],
    // Credentials in the URL: STARTTLS or nothing, even to loopback.
    ["smtp://user:pass@mail.example:587", "starttls-required"],
    ["smtp://user:pass@127.0.0.1:1025", "starttls-required"],
    ["smtp://user:pass@localhost:1025", "starttls-required"],
    ["smtp://user:pass@[::1]:1025", "starttls-required"],
    ["smtp://user@127.0.0.1", "starttls-required"],
    ["smtp://:pass@127.0.0.1", "starttls-required"],
    // Another host, even without credentials: the mail itself would cross the network.
    ["smtp://mail.example", "starttls-required"],
    ["smtp://mail.example:25", "starttls-required"],
    ["smtp://192.0.2.10:25", "starttls-required"],
    ["smtp://[2001:db8::1]:25", "starttls-required"],
    ["smtp://localhost.example:25", "starttls-required"],
    ["smtp://127.0.0.1.example:25", "starttls-required"],
    // Only the three loopback forms count: anything else is treated as another host.
    ["smtp://0.0.0.0:25", "starttls-required"],
    ["smtp://127.1:25", "starttls-required"],
    ["smtp://[::ffff:127.0.0.1]:25", "starttls-required"],
    // Without "//" the URL has no host for us, while nodemailer reads one into it: not loopback.
    ["smtp:127.0.0.1:25", "starttls-required"],
    // nodemailer takes `service` (a provider's host) and `proxy` from the query: both leave loopback.
    ["smtp://127.0.0.1:25?service=gmail", "starttls-required"],
    ["smtp://127.0.0.1:25?proxy=http://proxy.example:3128", "starttls-required"],
    // Query options that would turn STARTTLS off are not an opt-out.
    ["smtp://user:pass@mail.example?ignoreTLS=true", "starttls-required"],
    ["smtp://user:pass@mail.example?opportunisticTLS=true", "starttls-required"],
    ["smtp://user:pass@mail.example?secure=false", "starttls-required"],
    ["smtp://user:pass@mail.example?requireTLS=0", "starttls-required"],
    ["smtp://user:pass@mail.example?requireTLS=FALSE", "starttls-required"],
    ["smtp://user:pass@mail.example?requireTLS=false&requireTLS=true", "starttls-required"],
    // The opt-out, spelled as nodemailer reads it.
    ["smtp://user:pass@mail.example:587?requireTLS=false", "opted-out"],
    ["smtp://mail.example?requireTLS=false", "opted-out"],
    ["smtp://user:pass@127.0.0.1:1025?requireTLS=false", "opted-out"],
    // A loopback relay without credentials (a local Mailpit): STARTTLS when offered, as today.
    ["smtp://127.0.0.1:1025", "starttls-optional"],
    ["smtp://127.8.9.10:25", "starttls-optional"],
    ["smtp://127.255.255.254", "starttls-optional"],
    ["smtp://[::1]:1025", "starttls-optional"],
    ["smtp://[0:0:0:0:0:0:0:1]:1025", "starttls-optional"],
    ["smtp://localhost:1025", "starttls-optional"],
    ["smtp://LocalHost:1025", "starttls-optional"],
    ["smtp://localhost:1025?requireTLS=false", "starttls-optional"],
    ["smtp://127.0.0.1:1025?ignoreTLS=true", "starttls-optional"],
  ])("%s -> %s", (url, expected) => {
    expect(smtpTls(url)).toBe(expected);
  });

  it("warns at start when the opt-out is what lets a login or a brief go in cleartext", () => {
    const optedOut = parseConfig({
      ...EMAIL_ENV,
      SMTP_URL: "smtp://user:pass@mail.example:587?requireTLS=false",
    });
    expect(optedOut.email).not.toBeNull();
    expect(optedOut.warnings).toEqual([expect.stringMatching(/requireTLS=false.*cleartext/)]);
    expect(parseConfig(EMAIL_ENV).warnings).toEqual([]);
    expect(
      parseConfig({ ...EMAIL_ENV, SMTP_URL: "smtp://127.0.0.1:1025?requireTLS=false" }).warnings,
    ).toEqual([]);
  });

  it.each([
    ["smtps://user:pass@mail.example:465?tls.rejectUnauthorized=false", true],
    ["smtp://user:pass@mail.example:587?tls.rejectUnauthorized=false", true],
    ["smtp://127.0.0.1:1025?tls.rejectUnauthorized=false", true],
    // What nodemailer does not turn into `false`, Node's TLS does not honour: certificates are checked.
    ["smtps://user:pass@mail.example:465?tls.rejectUnauthorized=0", false],
    ["smtps://user:pass@mail.example:465?tls.rejectUnauthorized=true", false],
    ["smtps://user:pass@mail.example:465?tls.rejectUnauthorized=false&tls.rejectUnauthorized=true", false],
    ["smtps://user:pass@mail.example:465?rejectUnauthorized=false", false],
  ])("warns at start when %s turns certificate checks off: %s", (url, warned) => {
    const { warnings } = parseConfig({ ...EMAIL_ENV, SMTP_URL: url });
    const expected = warned
      ? [expect.stringMatching(/tls\.rejectUnauthorized=false.*certificate is not checked/)]
      : [];
    expect(warnings).toEqual(expected);
  });
});

describe("webhook channel", () => {
  it("WEBHOOK_SECRET without WEBHOOK_URL -> null with a warning", () => {
    const config = parseConfig({ WEBHOOK_SECRET: SECRET });
    expect(config.webhook).toBeNull();
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toContain("WEBHOOK_URL");
  });
});

describe("WEBHOOK_SECRET", () => {
  it.each([
    [SECRET, 32],
    [SECRET.slice("whsec_".length), 32],
    ["whsec_c2VjcmV0", 6],
    ["whsec_YQ==", 1],
    ["whsec_YWI=", 2],
    ["abcd", 3],
  ])("%j is taken as standardwebhooks takes it: %i key bytes", (secret, bytes) => {
    expect(webhookSecretBytes(secret)).toBe(bytes);
    const signer = new Webhook(secret);
    expect((Reflect.get(signer, "key") as Uint8Array).length).toBe(bytes);
  });

  // Some of these the library would decode to something; a secret that is not clean base64 is
  // more likely a passphrase pasted in by mistake, so it is refused rather than half-read.
  it.each([
    ["whsec_abc"],
    ["whsec_"],
    [""],
    ["whsec_YQ="],
    ["whsec_===="],
    ["whsec_c2VjcmV0!"],
    ["whsec_c2Vj cmV0"],
    ["whsec_c2VjcmV0-_"],
    ["my-shared-secret"],
    ["hello world"],
  ])("%j is refused", (secret) => {
    expect(webhookSecretBytes(secret)).toBeNull();
  });

  it("warns about a secret shorter than 24 bytes, but takes it", () => {
    const config = parseConfig({ WEBHOOK_URL: "https://hooks.example", WEBHOOK_SECRET: "whsec_c2VjcmV0" });
    expect(config.webhook?.secret).toBe("whsec_c2VjcmV0");
    expect(config.warnings).toEqual([expect.stringMatching(/WEBHOOK_SECRET is 6 bytes/)]);
  });
});

describe("parseMailbox", () => {
  it.each([
    ["intake@studio.example", { name: "", address: "intake@studio.example" }],
    ["  intake@studio.example  ", { name: "", address: "intake@studio.example" }],
    ["<intake@studio.example>", { name: "", address: "intake@studio.example" }],
    ["Studio <intake@studio.example>", { name: "Studio", address: "intake@studio.example" }],
    [
      "Studio Intake   < intake@studio.example >",
      { name: "Studio Intake", address: "intake@studio.example" },
    ],
    [
      '"Studio, Intake" <intake@studio.example>',
      { name: "Studio, Intake", address: "intake@studio.example" },
    ],
    [
      '"The \\"Studio\\"" <intake@studio.example>',
      { name: 'The "Studio"', address: "intake@studio.example" },
    ],
    ["Ünïcødé Studio <intake@studio.example>", { name: "Ünïcødé Studio", address: "intake@studio.example" }],
  ])("%j -> %j", (value, expected) => {
    expect(parseMailbox(value)).toEqual(expected);
  });

  it.each([
    [""],
    ["intake"],
    ["Studio"],
    ["Studio <>"],
    ["Studio <intake@studio.example"],
    ["Studio intake@studio.example>"],
    ["Studio <intake@studio.example>, Other <other@studio.example>"],
    ["<a@studio.example> <b@studio.example>"],
    ['Stu"dio <intake@studio.example>'],
    ["Stu\ndio <intake@studio.example>".replace("\\n", "\n")],
    ["Studio\r\nBcc: x@y.example <intake@studio.example>"],
  ])("%j -> null", (value) => {
    expect(parseMailbox(value)).toBeNull();
  });
});

describe("CRON_SECRET", () => {
  it("is the scheduled jobs' bearer token when at least 16 characters", () => {
    expect(parseConfig({ CRON_SECRET: "0123456789abcdef" }).cronSecret).toBe("0123456789abcdef");
  });

  it("shorter stops the start, naming the variable", () => {
    expect(configError({ CRON_SECRET: "0123456789abcde" }).message).toMatch(
      /CRON_SECRET must be at least 16/,
    );
  });
});

describe("OPS_EMAILS: the inbox on the web", () => {
  const NEEDS = {
    LINK_SIGNING_SECRET: "a-link-signing-secret-of-32-chars-or-more",
    SMTP_URL: "smtp://user:pass@mail.example:587",
    EMAIL_FROM: "Studio <intake@studio.example>",
  };

  it("lists the addresses lowercased, once each; EMAIL_TO is not needed", () => {
    const config = parseConfig({
      ...NEEDS,
      OPS_EMAILS: " Founder@Studio.example, producer@studio.example,founder@studio.EXAMPLE ",
    });
    expect(config.ops).toEqual({ emails: ["founder@studio.example", "producer@studio.example"] });
    expect(config.email).toBeNull();
  });

  it.each<[string, Env, string[]]>([
    ["alone", { OPS_EMAILS: "ops@studio.example" }, ["LINK_SIGNING_SECRET", "SMTP_URL", "EMAIL_FROM"]],
    [
      "without a secret",
      { ...NEEDS, LINK_SIGNING_SECRET: undefined, OPS_EMAILS: "ops@studio.example" },
      ["LINK_SIGNING_SECRET"],
    ],
    [
      "without EMAIL_FROM",
      { ...NEEDS, EMAIL_FROM: undefined, OPS_EMAILS: "ops@studio.example" },
      ["EMAIL_FROM"],
    ],
    [
      "with a bad EMAIL_FROM",
      { ...NEEDS, EMAIL_FROM: "not a mailbox", OPS_EMAILS: "ops@studio.example" },
      ["EMAIL_FROM must be an address"],
    ],
    [
      "with a short secret",
      { ...NEEDS, LINK_SIGNING_SECRET: "short", OPS_EMAILS: "ops@studio.example" },
      ["LINK_SIGNING_SECRET must be at least 32"],
    ],
    [
      "with something that is not an address",
      { ...NEEDS, OPS_EMAILS: "ops@studio.example, ops" },
      ["OPS_EMAILS", "ops"],
    ],
  ])("stops the start %s, naming what is missing", (_case, env, named) => {
    const { message } = configError(env);
    for (const text of named) expect(message).toContain(text);
  });
});

describe("the warning about proxy hops at start", () => {
  it.each([
    [
      "the default (1), not on Vercel",
      {},
      /TRUSTED_PROXY_HOPS=1: .*reach this server directly.*TRUSTED_PROXY_HOPS=0/,
    ],
    ["2, not on Vercel", { TRUSTED_PROXY_HOPS: "2" }, /TRUSTED_PROXY_HOPS=2: .*2 places from the right/],
    ["the default on Vercel", { VERCEL: "1" }, null],
    ["0 (the header ignored)", { TRUSTED_PROXY_HOPS: "0" }, null],
  ])("%s", (_, env: Env, expected: RegExp | null) => {
    const warning = proxyHopsWarning(parseConfig(env));
    if (expected === null) expect(warning).toBeNull();
    else expect(warning).toMatch(expected);
  });

  it("is not one of the configuration's warnings, which the ops tool prints too", () => {
    expect(parseConfig({}).warnings).toEqual([]);
  });
});
