import { randomBytes } from "node:crypto";
import { type Config, getConfig } from "./config";
import { Acknowledger } from "./contact/acknowledge";
import { ChannelAlerts, Deliveries, QStashPublisher, retryDestination, RetryMessages } from "./deliveries";
import { createStore, type ObjectStore } from "./store";
import { loadVercelBlob } from "./store/blob-sdk";
import { LinkSigner } from "./links";
import { indexDeliveryChange } from "./ops";
import { createOpsServices, type OpsServices } from "./ops-web";
import { type Channel, createChannels, SubscriberEvents } from "./notify";
import { type Cooldowns, createCooldowns, createRateLimiters, type RateLimiters } from "./ratelimit";
import { createVerifier, type Verifier } from "./verification";
import { VisitorMailer } from "./visitor-email";

/**
 * What reading and re-notifying the inbox needs: the app's own store and channels, built by the
 * same code, so the ops tool (scripts/inbox.ts) sees exactly the inbox the routes write.
 */
export interface InboxServices {
  config: Config;
  store: ObjectStore;
  /** The configured notification channels, in the order webhook, email, slack. */
  channels: readonly Channel[];
  /** Emails each brief's sender (`CONTACT_ACKNOWLEDGE=true`); `null` when that is off. */
  acknowledger: Acknowledger | null;
  /** Every channel attempt made, logged in `delivery.json` and retried on the schedule (part 4). */
  deliveries: Deliveries;
}

/** The integrations the routes use, built once per process from the configuration. */
export interface Services extends InboxServices {
  limiters: RateLimiters;
  /** Whether a request comes from a person: Turnstile, or off. */
  verifier: Verifier;
  /** Once per address per window (confirmation emails), in the rate limits' store. */
  cooldowns: Cooldowns;
  /** Salt for `client.ipHash`. */
  ipHashSalt: string;
  /** Emails to visitors; `null` without `SMTP_URL` and `EMAIL_FROM`. */
  visitorMailer: VisitorMailer | null;
  /** Signs and checks the links emailed to visitors; `null` without `LINK_SIGNING_SECRET`. */
  links: LinkSigner | null;
  /** Newsletter events for the webhook channel; `null` when it is not configured. */
  subscriberEvents: SubscriberEvents | null;
  /** The inbox on the web (`OPS_EMAILS`); `null` when it is off. */
  ops: OpsServices | null;
  /** Reads QStash's signed retry messages; `null` without QStash (`POST /api/deliveries/retry` is off). */
  retryMessages: RetryMessages | null;
}

/** Logs the configuration's warnings (to stderr), then builds the store and the channels. */
export function createInboxServices(config: Config, cooldowns?: Cooldowns): InboxServices {
  for (const warning of config.warnings) console.warn(`[config] ${warning}`);
  const store = createStore(config);
  const channels = createChannels(config);
  const acknowledger = createAcknowledger(config, cooldowns);
  return {
    config,
    store,
    channels,
    acknowledger,
    deliveries: createDeliveries(config, store, channels, acknowledger),
  };
}

/** Part 4's deliveries over the app's own store and channels; QStash makes the retries when it is set up. */
function createDeliveries(
  config: Config,
  store: ObjectStore,
  channels: readonly Channel[],
  acknowledger: Acknowledger | null,
): Deliveries {
  const destination = retryDestination(config.siteOrigin);
  return new Deliveries({
    store,
    channels,
    acknowledger,
    notifyTimeoutMs: config.notifyTimeoutMs,
    retrySchedule: config.retrySchedule,
    alerts: new ChannelAlerts(
      config.email,
      config.webhook,
      config.ops ? `${config.siteOrigin}/inbox` : null,
      config.notifyTimeoutMs,
    ),
    publisher: config.qstash && new QStashPublisher(config.qstash, destination),
    onDeliveryChanged: (folder, delivery) => indexDeliveryChange(store, folder, delivery),
  });
}

/** The acknowledgment's sender, when it is on (the start made sure SMTP_URL and EMAIL_FROM are set). */
function createAcknowledger(config: Config, cooldowns?: Cooldowns): Acknowledger | null {
  if (!config.acknowledgment || !config.visitorEmail) return null;
  return new Acknowledger(
    new VisitorMailer({ ...config.visitorEmail, siteName: config.siteName }, config.notifyTimeoutMs),
    (cooldowns ?? createCooldowns(config)).acknowledgment,
    config.acknowledgment.replyTo,
    config.notifyTimeoutMs,
  );
}

/**
 * Starts loading, in the background, the SDKs this configuration uses (each is otherwise loaded by
 * its first call, so none that is not configured is ever loaded): the first brief's email or webhook
 * then does not spend its `NOTIFY_TIMEOUT_MS` loading code. Nothing waits for it; a load that fails
 * here fails again, and is reported, at the call that needs it.
 */
function preloadConfiguredIntegrations(config: Config): void {
  const loads: Promise<unknown>[] = [];
  if (config.inbox.driver === "vercel-blob") loads.push(loadVercelBlob());
  if (config.redis) loads.push(import("@upstash/redis"), import("@upstash/ratelimit"));
  if (config.qstash) loads.push(import("@upstash/qstash"));
  if (config.email || config.visitorEmail) loads.push(import("nodemailer"));
  if (config.visitorEmail) loads.push(import("./visitor-email/templates"));
  if (config.webhook || config.turnstile) loads.push(import("undici"));
  void Promise.allSettled(loads);
}

export function createServices(config: Config): Services {
  preloadConfiguredIntegrations(config);
  const cooldowns = createCooldowns(config);
  const inbox = createInboxServices(config, cooldowns);
  let ipHashSalt = config.ipHashSalt;
  if (ipHashSalt === null) {
    console.warn(
      "[config] IP_HASH_SALT is not set: client addresses are hashed with a random salt that changes on every restart",
    );
    ipHashSalt = randomBytes(32).toString("hex");
  }
  const limiters = createRateLimiters(config);
  const visitorMailer =
    config.visitorEmail &&
    new VisitorMailer({ ...config.visitorEmail, siteName: config.siteName }, config.notifyTimeoutMs);
  const links =
    config.linkSigningSecret === null ? null : new LinkSigner(config.linkSigningSecret, config.siteOrigin);
  return {
    ...inbox,
    limiters,
    verifier: createVerifier(config),
    cooldowns,
    ipHashSalt,
    visitorMailer,
    links,
    subscriberEvents:
      config.webhook &&
      new SubscriberEvents(config.webhook.url, config.webhook.secret, config.notifyTimeoutMs),
    ops: createOpsServices(config, inbox.store, limiters, { links, mailer: visitorMailer }),
    retryMessages: config.qstash && new RetryMessages(config.qstash, retryDestination(config.siteOrigin)),
  };
}

let services: Services | undefined;

export function getServices(): Services {
  services ??= createServices(getConfig());
  return services;
}
