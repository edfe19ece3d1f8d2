/**
 * Every environment variable the service reads, with what it means. The single source of three
 * things, so they cannot drift apart: the variables `lib/config/` parses (its raw schema is
 * built from this list), `.env.example`, and the tables of `docs/configuration.md` (both written
 * by `npm run docs`, and checked by `tests/unit/docs.test.ts`).
 */

export interface Variable {
  name: string;
  /** The heading it is listed under. */
  group: VariableGroup;
  /** What applies when it is not set, as the docs say it. */
  default: string;
  /** The value `.env.example` shows (empty: not set). */
  example: string;
  /** One line for the docs' table (Markdown). */
  summary: string;
  /** What `.env.example` says above it, in plain text, wrapped by the generator. */
  notes: string;
}

export const VARIABLE_GROUPS = [
  "The site",
  "The inbox",
  "Rate limits",
  "Notifications to ops",
  "Emails to visitors",
  "Human verification",
  "Spam rules",
  "The inbox on the web",
  "Scheduled jobs",
] as const;

export type VariableGroup = (typeof VARIABLE_GROUPS)[number];

export const VARIABLES = [
  {
    name: "SITE_URL",
    group: "The site",
    default: "`http://localhost:3000`",
    example: "http://localhost:3000",
    summary:
      "the site's public origin: contact requests from it are same-origin, and emailed links, `robots.txt`, `sitemap.xml` and canonical URLs are made on it (set it where the site is built too)",
    notes:
      "The site's public origin. Contact requests whose Origin is this one are same-origin; links in emails, robots.txt, sitemap.xml and the pages' canonical URLs are made on it (set it where the site is built too).",
  },
  {
    name: "SITE_NAME",
    group: "The site",
    default: "`Northwind Studio`",
    example: "",
    summary:
      "what the emails and the inbox call the site: the emails' brand line and reasons, the newsletter confirmation's and the sign-in link's subjects, the inbox's header (at most 80 characters, one line)",
    notes:
      "What the emails and the inbox call the site: the emails' brand line and the reason each gives, the subjects of the newsletter confirmation (Confirm your subscription to the <name> newsletter) and of the ops sign-in link, and the inbox's header. At most 80 characters, on one line. Unset: Northwind Studio, this site's own name; a site that adopts the package sets its own.",
  },
  {
    name: "ALLOWED_ORIGINS",
    group: "The site",
    default: "(none)",
    example: "",
    summary: "more origins allowed to post the contact form, comma-separated",
    notes: "More origins allowed to post the contact form, comma-separated (e.g. a staging site).",
  },
  {
    name: "TRUSTED_PROXY_HOPS",
    group: "The site",
    default: "`1`",
    example: "1",
    summary:
      "which `X-Forwarded-For` entry is the client: the one this many places from the right; `0` ignores the header (see [deployment](deployment.md#client-addresses))",
    notes:
      "How many proxies in front of the app append to X-Forwarded-For; the client address is the entry this many places from the right. 1 fits Vercel and a single reverse proxy. 0 ignores the header (every client then shares one rate-limit budget).",
  },
  {
    name: "VERCEL",
    group: "The site",
    default: "(set by Vercel)",
    example: "",
    summary:
      "set by Vercel on its deployments; never set it yourself: it tells the start that `X-Forwarded-For` comes from Vercel's edge, so the warning about `TRUSTED_PROXY_HOPS` is not needed",
    notes:
      "Set by Vercel on its deployments (to 1); never set it yourself. Without it, the start warns when TRUSTED_PROXY_HOPS is above 0: a next start that clients can reach directly lets each client choose its own address (docs/deployment.md, Client addresses).",
  },
  {
    name: "INBOX_DIR",
    group: "The inbox",
    default: "`.data/inbox`",
    example: ".data/inbox",
    summary: "the filesystem inbox's directory",
    notes: "Filesystem inbox directory (the embedded default).",
  },
  {
    name: "BLOB_READ_WRITE_TOKEN",
    group: "The inbox",
    default: "(none)",
    example: "",
    summary:
      "the inbox in a private Vercel Blob store instead of `INBOX_DIR` (`vercel_blob_rw_<store id>_<secret>`; Vercel sets it when a Blob store is connected)",
    notes:
      "Set to keep the inbox in a private Vercel Blob store instead of INBOX_DIR: the store's read-write token, vercel_blob_rw_<store id>_<secret> (Vercel sets it when a Blob store is connected to the project). Objects are private: readable only with this token.",
  },
  {
    name: "UPSTASH_REDIS_REST_URL",
    group: "Rate limits",
    default: "(none)",
    example: "",
    summary:
      "with `UPSTASH_REDIS_REST_TOKEN`: rate limits (and the acknowledgment's and confirmation's windows) shared by every instance through Upstash Redis; set both or neither",
    notes:
      "Set with UPSTASH_REDIS_REST_TOKEN to share rate limits between instances through Upstash Redis (the database's REST URL and token); otherwise they live in process memory. If Redis is slow or down, requests go on unchecked within 1.5 s and a warning is logged.",
  },
  {
    name: "UPSTASH_REDIS_REST_TOKEN",
    group: "Rate limits",
    default: "(none)",
    example: "",
    summary: "the Upstash database's REST token (set with `UPSTASH_REDIS_REST_URL`)",
    notes: "The Upstash database's REST token (set with UPSTASH_REDIS_REST_URL).",
  },
  {
    name: "CONTACT_RATE_LIMIT",
    group: "Rate limits",
    default: "`5/10m`",
    example: "5/10m",
    summary: "`<count>/<window>`, window in `s`, `m` or `h`, per client address, for `POST /api/contact`",
    notes: "<count>/<window>, window in s, m or h, per client address, for POST /api/contact.",
  },
  {
    name: "NEWSLETTER_RATE_LIMIT",
    group: "Rate limits",
    default: "`10/10m`",
    example: "10/10m",
    summary:
      "same form, for `POST /api/newsletter` (and, in a budget of its own, `POST /api/newsletter/confirm`)",
    notes: "The same, for POST /api/newsletter (and, in a budget of its own, POST /api/newsletter/confirm).",
  },
  {
    name: "UPLOAD_RATE_LIMIT",
    group: "Rate limits",
    default: "`10/10m`",
    example: "10/10m",
    summary: "same form, for the upload tokens `POST /api/contact/upload` issues (Blob inbox only)",
    notes: "The same, for the upload tokens POST /api/contact/upload issues (only with the Blob inbox).",
  },
  {
    name: "IP_HASH_SALT",
    group: "Rate limits",
    default: "random per process",
    example: "",
    summary:
      "salt of the hashed client address in each brief and key of the client's hash in Redis keys; the same on every instance (unset: a warning)",
    notes:
      "Salt for the hashed client address stored with each brief, and key for the hash of the client that names its rate-limit entries in Redis (never the address itself): set the same value on every instance, or they count separate budgets. Unset: briefs get a random salt per process (a warning is logged, and hashes from different runs cannot be compared); Redis keys get a fixed key, so instances still share, but an IPv4 address can then be recovered from its key by trying them all.",
  },
  {
    name: "WEBHOOK_URL",
    group: "Notifications to ops",
    default: "(none)",
    example: "",
    summary:
      "webhook channel: each stored brief is POSTed here as JSON; redirects are not followed (see [the webhook](#webhook))",
    notes:
      'Webhook channel: POST each stored brief as JSON (type "brief.received") to this URL. A 2xx answer is success; redirects are not followed (point it at the final address).',
  },
  {
    name: "WEBHOOK_SECRET",
    group: "Notifications to ops",
    default: "(none)",
    example: "",
    summary:
      'signs each webhook request per Standard Webhooks: `whsec_` + base64 of 24 to 64 random bytes (`echo "whsec_$(openssl rand -base64 32)"`)',
    notes:
      'Signs each request per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). Form: whsec_ + base64 of 24-64 random bytes, e.g. echo "whsec_$(openssl rand -base64 32)". Anything that is not clean base64 stops the start. Receivers verify with the same string.',
  },
  {
    name: "SMTP_URL",
    group: "Notifications to ops",
    default: "(none)",
    example: "",
    summary:
      "`smtps://` or `smtp://` URL of the mail server every email goes through; `smtp://` with credentials or to another host requires STARTTLS (see [encryption](#email))",
    notes:
      "The mail server every email goes through (the email channel needs SMTP_URL, EMAIL_FROM and EMAIL_TO; emails to visitors need the first two). smtps:// is TLS from the first byte (port 465). smtp:// with credentials, or to a host other than loopback (localhost, 127.x.x.x, [::1]), requires STARTTLS (587): without it nothing is sent, the brief stays stored and delivery.json says why. A local relay without credentials (smtp://127.0.0.1:1025, Mailpit) needs no TLS. ?requireTLS=false opts out: then the login and every brief go in cleartext whenever the server does not offer STARTTLS or someone on the way strips it (docs/configuration.md, Encryption). Percent-encode @ : / in the user name or password. Example: smtps://user:password@smtp.example.com:465",
  },
  {
    name: "EMAIL_FROM",
    group: "Notifications to ops",
    default: "(none)",
    example: "",
    summary: "the sender of every email, optionally with a display name (`Studio <intake@studio.example>`)",
    notes: "The sender of every email, optionally with a display name: Studio Intake <intake@studio.example>",
  },
  {
    name: "EMAIL_TO",
    group: "Notifications to ops",
    default: "(none)",
    example: "",
    summary:
      "the email channel's recipients, comma-separated; the channel is configured only when `SMTP_URL`, `EMAIL_FROM` and `EMAIL_TO` are all set",
    notes:
      "The email channel's recipients: a comma-separated list of plain addresses (spaces allowed). The channel is configured only when SMTP_URL, EMAIL_FROM and EMAIL_TO are all set.",
  },
  {
    name: "EMAIL_ROUTES",
    group: "Notifications to ops",
    default: "(none)",
    example: "",
    summary:
      "the ops email by project type: `<projectType>=<address>[,<address>...];...` (e.g. `ai-system=ml@studio.example;mobile-application=apps@studio.example`); a brief of a listed type is emailed to its addresses instead of `EMAIL_TO` (see [routing](#routing-by-project-type))",
    notes:
      "Routes the ops email by project type: <projectType>=<address>[,<address>...];... e.g. ai-system=ml@studio.example;mobile-application=apps@studio.example. A brief of a listed type is emailed to those addresses instead of EMAIL_TO; other types still go to EMAIL_TO. The webhook is not affected. An unknown project type (web-application, mobile-application, ai-system, saas-platform, data-platform, integration, other) or a bad address stops the start.",
  },
  {
    name: "SLACK_WEBHOOK_URL",
    group: "Notifications to ops",
    default: "(none)",
    example: "",
    summary:
      "Slack channel: each stored brief is posted to this incoming-webhook URL; for Discord, the channel webhook's URL + `/slack` (see [Slack and Discord](#slack-and-discord))",
    notes:
      "Slack channel: each stored brief is posted here as a Slack message (the sender, company, project type, budget, timeline, the start of the description, the attachment and, with the inbox on the web, a link to the brief). Create an incoming webhook in a Slack app (api.slack.com/apps, Incoming Webhooks) and paste its URL. For Discord, use the channel webhook's URL followed by /slack. A 2xx answer is success; redirects are not followed.",
  },
  {
    name: "NOTIFY_TIMEOUT_MS",
    group: "Notifications to ops",
    default: "`5000`",
    example: "5000",
    summary:
      "how long each channel (and each email to a visitor) gets before it counts as failed; at most `280000` (a delivery attempt's claim must cover it, see [deliveries](operations.md#deliveries))",
    notes:
      "Milliseconds each channel (and each email to a visitor) gets before it counts as failed; the contact answer waits at most this long (plus a moment) for notifications. At most 280000: a delivery attempt keeps its claim for twice this (the attempt and the alert if it gives up) plus its store calls, within a 10-minute lease; a larger value stops the start.",
  },
  {
    name: "DELIVERY_RETRY_SCHEDULE",
    group: "Notifications to ops",
    default: "`5s,5m,30m,2h,5h,10h,10h`",
    example: "",
    summary:
      "the waits before each retry of a channel that failed (and of the acknowledgment), each counted from the previous failure and varied by up to ±10%; whole numbers of `s`, `m`, `h` or `d`; `off`: no retries (see [deliveries](operations.md#deliveries))",
    notes:
      "The waits before each retry of a notification channel that failed (and of the acknowledgment to the submitter), each counted from the previous failure and varied at random by up to 10%: comma-separated whole numbers of s, m, h or d. The default, 5s,5m,30m,2h,5h,10h,10h, is 8 attempts over about 27 hours. off: a failed channel is not retried (ops can still press Retry now).",
  },
  {
    name: "NEWSLETTER_DOUBLE_OPT_IN",
    group: "Emails to visitors",
    default: "`false`",
    example: "",
    summary:
      "`true`: a subscription waits for its address to confirm it by email; needs `SMTP_URL`, `EMAIL_FROM` and `LINK_SIGNING_SECRET` (see [double opt-in](#newsletter-double-opt-in))",
    notes:
      "Newsletter double opt-in: true makes each new subscription wait until its address confirms it through a link emailed to it (docs/configuration.md, Newsletter double opt-in). Emails to visitors go through SMTP_URL from EMAIL_FROM (EMAIL_TO is not needed), so both must be set, and so must LINK_SIGNING_SECRET: the start stops, naming what is missing. Unset or false: single opt-in.",
  },
  {
    name: "CONTACT_ACKNOWLEDGE",
    group: "Emails to visitors",
    default: "`false`",
    example: "",
    summary:
      "`true`: each brief's sender gets an acknowledgment email, at most one per address per 10 minutes; needs `SMTP_URL`, `EMAIL_FROM` and human verification (`TURNSTILE_SECRET_KEY`, `TURNSTILE_SITE_KEY`) (see [the acknowledgment](#acknowledgment-to-the-submitter))",
    notes:
      'Acknowledgment to the submitter: true emails each brief\'s sender "We received your brief – <reference>", at most one per address per 10 minutes (docs/configuration.md, Acknowledgment to the submitter). Needs SMTP_URL and EMAIL_FROM (not EMAIL_TO), and human verification (TURNSTILE_SECRET_KEY and TURNSTILE_SITE_KEY), since the form names the address it goes to: the start stops, naming what is missing.',
  },
  {
    name: "EMAIL_REPLY_TO",
    group: "Emails to visitors",
    default: "the first `EMAIL_TO`",
    example: "",
    summary:
      "the studio's address for visitors (optionally with a display name): `Reply-To` of the acknowledgment, and where the forms suggest writing when Turnstile's script cannot load; with neither it nor `EMAIL_TO`, none",
    notes:
      "The studio's address for visitors, optionally with a display name: the acknowledgment's Reply-To, and, with human verification on, the address the forms offer (mailto:) when Cloudflare's script cannot load in a visitor's browser. Unset: the first EMAIL_TO; with neither, the acknowledgment has no Reply-To and the forms offer no address.",
  },
  {
    name: "LINK_SIGNING_SECRET",
    group: "Emails to visitors",
    default: "(none)",
    example: "",
    summary:
      "secret the keys of the emailed links' HMACs are derived from (confirm, unsubscribe, ops sign-in), at least 32 characters, the same on every instance; changing it, or `SITE_URL`'s origin, invalidates every link sent (see [links](#newsletter-double-opt-in))",
    notes:
      "Secret the signing keys of emailed links are derived from, one per purpose (newsletter confirm and unsubscribe, ops sign-in): at least 32 characters, e.g. openssl rand -base64 32. The same on every instance. Every link also names SITE_URL's origin, so another site sharing this secret cannot make links for this one. Changing it, or SITE_URL's origin, invalidates every link already sent, unsubscribe links included.",
  },
  {
    name: "TURNSTILE_SITE_KEY",
    group: "Human verification",
    default: "(none)",
    example: "",
    summary:
      "with `TURNSTILE_SECRET_KEY`: human verification with Cloudflare Turnstile on both forms and on upload tokens (see [human verification](#human-verification-cloudflare-turnstile)); the site key is public",
    notes:
      "Human verification with Cloudflare Turnstile, on both forms and on upload tokens. Set both keys to turn it on (one without the other stops the start); unset, nothing is checked and records say \"off\". Create them in the Cloudflare dashboard: Turnstile, Add widget, your site's hostnames (docs/configuration.md, Human verification). The site key is public: the page renders the widget with it. For local use, Cloudflare's test keys: site 1x00000000000000000000AA with secret 1x0000000000000000000000000000000AA always pass (2x... always fail); never in production.",
  },
  {
    name: "TURNSTILE_SECRET_KEY",
    group: "Human verification",
    default: "(none)",
    example: "",
    summary: "Turnstile's secret key (set with `TURNSTILE_SITE_KEY`); it never leaves the server",
    notes: "Turnstile's secret key (set with TURNSTILE_SITE_KEY); it never leaves the server.",
  },
  {
    name: "TURNSTILE_VERIFY_URL",
    group: "Human verification",
    default: "Cloudflare's siteverify",
    example: "",
    summary:
      "where Turnstile tokens are checked (`https://challenges.cloudflare.com/turnstile/v0/siteverify`), for a proxy or a test double",
    notes:
      'Where tokens are checked: unset, Cloudflare\'s siteverify (https://challenges.cloudflare.com/turnstile/v0/siteverify); or a proxy or test double in its place. Each check gets 3 s with one retry; when siteverify cannot be reached, slow or failing, requests go on recorded as "unavailable" and a warning is logged.',
  },
  {
    name: "SPAM_KEYWORDS",
    group: "Spam rules",
    default: "(none)",
    example: "",
    summary:
      "comma-separated words or phrases: a brief whose name, company, role or description holds one (case-insensitive, whole words only) is kept under `spam/` like a honeypot catch (see [spam rules](#spam-rules))",
    notes:
      'Comma-separated words or phrases (e.g. casino,seo services,crypto giveaway). A brief whose name, company, role or description holds one, in any case and as whole words ("ass" does not match "class"), is treated like a honeypot catch: stored under spam/, answered as usual, nobody notified. /inbox/spam and the inbox tool show which rule caught it.',
  },
  {
    name: "SPAM_EMAIL_DOMAINS",
    group: "Spam rules",
    default: "(none)",
    example: "",
    summary:
      "comma-separated domains: a brief sent from one of them, or from any subdomain of one, is kept under `spam/` (internationalised names in either form: `münchen.example` is `xn--mnchen-3ya.example`)",
    notes:
      "Comma-separated domain names (e.g. spam.example,münchen.example). A brief whose email address is at one of them, or at any subdomain of one (mail.spam.example), is treated like a honeypot catch; notspam.example is not spam.example. Internationalised names match in either form (münchen.example is xn--mnchen-3ya.example). Anything that is not a domain name stops the start.",
  },
  {
    name: "OPS_EMAILS",
    group: "The inbox on the web",
    default: "(none)",
    example: "",
    summary:
      "the inbox on the web (`/inbox`): the addresses allowed to sign in by an emailed link, comma-separated; needs `LINK_SIGNING_SECRET`, `SMTP_URL` and `EMAIL_FROM` (see [the inbox on the web](operations.md#the-inbox-on-the-web))",
    notes:
      "The inbox on the web (/inbox): the comma-separated addresses allowed to sign in by an emailed link (compared lowercased; read at run time, so removing one ends its sessions on their next request). Needs LINK_SIGNING_SECRET, SMTP_URL and EMAIL_FROM: the start stops, naming what is missing. Unset: off, and every /inbox and /api/ops path answers 404 (docs/operations.md).",
  },
  {
    name: "RETENTION_DAYS",
    group: "The inbox",
    default: "(none: kept forever)",
    example: "",
    summary:
      "`gc` (the inbox tool, `GET /api/cron/gc`, and a long-lived server once an hour) erases briefs and spam entries received more than this many days ago, every file of each; a whole number from 1 to 36500 (see [retention](operations.md#retention))",
    notes:
      "How many days briefs and spam entries are kept: gc (the inbox tool, GET /api/cron/gc, and a long-lived server by itself once an hour) erases those received more than this many days ago, every file of each, and records each run that erased something in the audit log. A whole number from 1 to 36500. Unset: kept forever. Newsletter records still pending after 7 days are removed whatever this says (nobody consented).",
  },
  {
    name: "CRON_SECRET",
    group: "Scheduled jobs",
    default: "(none)",
    example: "",
    summary:
      "turns on `GET /api/cron/gc` (the inbox tool's `gc` over HTTP, for Vercel Cron), which then needs `Authorization: Bearer <CRON_SECRET>`; at least 16 characters (see [scheduling gc](operations.md#scheduling-gc))",
    notes:
      "Turns on GET /api/cron/gc, which removes staged uploads no brief claimed, expired sign-in records and the temporary files of uploads a stopped server left unfinished (the inbox tool's gc), for Vercel Cron: Vercel sends Authorization: Bearer <CRON_SECRET> with each scheduled call when the project has this variable. At least 16 characters, e.g. openssl rand -base64 32. Unset: the route answers 404.",
  },
  {
    name: "QSTASH_TOKEN",
    group: "Scheduled jobs",
    default: "(none)",
    example: "",
    summary:
      "with both signing keys: every delivery retry is published to Upstash QStash with its delay and comes back to `POST /api/deliveries/retry` on `SITE_URL`, so retries are on time on serverless without a per-minute cron",
    notes:
      "Upstash QStash (console.upstash.com, QStash tab): with QSTASH_CURRENT_SIGNING_KEY and QSTASH_NEXT_SIGNING_KEY, every delivery retry is published to QStash with its delay and comes back, signed, to POST SITE_URL/api/deliveries/retry, so a serverless deployment retries on time without a per-minute cron. Set all three or none.",
  },
  {
    name: "QSTASH_CURRENT_SIGNING_KEY",
    group: "Scheduled jobs",
    default: "(none)",
    example: "",
    summary:
      "QStash's current signing key: `POST /api/deliveries/retry` accepts only messages signed with it or the next one",
    notes:
      "QStash's current signing key: POST /api/deliveries/retry accepts only messages signed with it or the next one.",
  },
  {
    name: "QSTASH_NEXT_SIGNING_KEY",
    group: "Scheduled jobs",
    default: "(none)",
    example: "",
    summary: "QStash's next signing key (QStash signs with it once the keys are rolled)",
    notes: "QStash's next signing key (QStash signs with it once the keys are rolled).",
  },
  {
    name: "QSTASH_URL",
    group: "Scheduled jobs",
    default: "`https://qstash.upstash.io`",
    example: "",
    summary: "QStash's API address (no path), for a region of its own or a stand-in (the tests')",
    notes:
      "QStash's API address, without a path (the client adds /v2/publish), for a region of its own or a stand-in (the tests use one). Unset: https://qstash.upstash.io.",
  },
] as const satisfies readonly Variable[];

export type VariableName = (typeof VARIABLES)[number]["name"];
