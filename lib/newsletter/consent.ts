import { finishInBackground } from "../background";
import type { Config } from "../config";
import { ApiError, validationFailed } from "../http/errors";
import type { ObjectStore } from "../store";
import type { LinkSigner } from "../links";
import { describeFailure, type SubscriberEvents, type SubscriberEventType } from "../notify";
import {
  type CooldownClaim,
  CooldownUnavailableError,
  type Cooldowns,
  releasedOnFailure,
} from "../ratelimit";
import {
  newsletterConfirmationSubject,
  renderNewsletterConfirmation,
  type VisitorMailer,
} from "../visitor-email";
import {
  CONFIRM_ACTION,
  LINK_MESSAGES,
  newsletterLinks,
  subscriberOfToken,
  UNSUBSCRIBE_ACTION,
} from "./links";
import {
  confirmSubscriber,
  type SubscriberRecord,
  subscribe,
  subscriberId,
  type SubscriptionRequest,
  unsubscribeSubscriber,
} from "./subscribers";

/** What the newsletter's routes need from the process's services. */
export interface NewsletterServices {
  config: Pick<Config, "siteOrigin" | "newsletterDoubleOptIn">;
  store: ObjectStore;
  /** `null` without `SMTP_URL` and `EMAIL_FROM` (then double opt-in is off: the start checks it). */
  visitorMailer: VisitorMailer | null;
  /** `null` without `LINK_SIGNING_SECRET`: then no link can be made or checked. */
  links: LinkSigner | null;
  cooldowns: Cooldowns;
  /** `null` without the webhook channel. */
  subscriberEvents: SubscriberEvents | null;
}

/** The answer to `POST /api/newsletter`. */
export type SubscribeOutcome = "subscribed" | "already-subscribed" | "confirmation-sent";

/**
 * `POST /api/newsletter`: stores the subscription, then, with double opt-in, emails the address a
 * confirmation link (at most one per address per 10 minutes: a request inside that window sends
 * none and is answered the same). The record is stored before the email is sent: when the email
 * cannot be sent the answer is 503 `email_unavailable`, the pending record stays, and the window
 * is given back, so a retry sends it. While Redis cannot say whether the window is open, no email
 * is sent and the answer is the same 503.
 *
 * With single opt-in, a request a browser marked as sent from another site (`site: "cross-site"`)
 * is held to double opt-in when confirmation emails can be sent: a hostile page could otherwise
 * make its visitors' browsers subscribe addresses of its choosing, with a bystander's address hash
 * as the evidence. Without email it is stored as any other, its record saying `cross-site`.
 */
export async function requestSubscription(
  services: NewsletterServices,
  subscription: SubscriptionRequest,
  now: Date = new Date(),
): Promise<SubscribeOutcome> {
  const doubleOptIn =
    services.config.newsletterDoubleOptIn ||
    (subscription.site === "cross-site" && canConfirmByLink(services));
  const { status, record } = await subscribe(services.store, subscription, now, undefined, { doubleOptIn });
  if (status === "subscribed") announce(services, "newsletter.confirmed", record);
  if (status !== "pending") return status;
  await sendConfirmation(services, record, now);
  return "confirmation-sent";
}

/** `POST /api/newsletter/confirm`: the link's subscriber becomes `confirmed`; 422 `fields.token` for a bad link. */
export async function confirmSubscription(
  services: NewsletterServices,
  token: unknown,
  now: Date = new Date(),
): Promise<"confirmed" | "already-subscribed"> {
  const id = subscriberOfToken(services.links, token, CONFIRM_ACTION, now);
  const result = await confirmSubscriber(services.store, id, now);
  if (result.outcome === "not-pending") throw validationFailed({ token: LINK_MESSAGES.spent });
  if (result.outcome === "confirmed") announce(services, "newsletter.confirmed", result.record);
  return result.outcome;
}

/** `POST /api/newsletter/unsubscribe`: idempotent; the link's subscriber is `unsubscribed`. */
export async function cancelSubscription(
  services: NewsletterServices,
  token: unknown,
  now: Date = new Date(),
): Promise<"unsubscribed"> {
  const id = subscriberOfToken(services.links, token, UNSUBSCRIBE_ACTION, now);
  const { previous, record } = await unsubscribeSubscriber(services.store, id, now);
  // The events follow the confirmed list: a pending address never joined it.
  if (previous === "confirmed" && record) announce(services, "newsletter.unsubscribed", record);
  return "unsubscribed";
}

/** A confirmation email can be sent: `SMTP_URL`, `EMAIL_FROM` and `LINK_SIGNING_SECRET` are set. */
function canConfirmByLink(services: NewsletterServices): boolean {
  return services.visitorMailer !== null && services.links !== null;
}

async function sendConfirmation(services: NewsletterServices, record: SubscriberRecord, now: Date) {
  const { visitorMailer, links } = services;
  // The start refuses double opt-in without these; a missing one here is a bug, answered 500.
  if (!visitorMailer || !links)
    throw new Error("Double opt-in needs SMTP_URL, EMAIL_FROM and LINK_SIGNING_SECRET");
  const id = subscriberId(record.email);
  const claim = await claimConfirmation(services, id);
  if (claim === null) return; // one was sent within the last 10 minutes
  // The window first: only an email that will be sent is rendered.
  await releasedOnFailure(claim, async () => {
    const urls = newsletterLinks(links, services.config.siteOrigin, id, now);
    const email = await renderNewsletterConfirmation({
      siteName: visitorMailer.siteName,
      email: record.email,
      topics: record.topics,
      confirmUrl: urls.confirm,
      unsubscribeUrl: urls.unsubscribePage,
      validFor: "7 days",
    });
    try {
      await visitorMailer.send({
        to: record.email,
        subject: newsletterConfirmationSubject(visitorMailer.siteName),
        ...email,
        oneClickUnsubscribeUrl: urls.oneClickUnsubscribe,
      });
    } catch (error) {
      console.warn(
        `[newsletter] confirmation email for subscriber ${shortId(id)} not sent: ${withoutAddress(describeFailure(error), record.email)}`,
      );
      throw new ApiError("email_unavailable", undefined, { cause: error });
    }
  });
}

/** The address's window; while Redis cannot tell, 503 `email_unavailable` (the cooldown warns, throttled). */
async function claimConfirmation(services: NewsletterServices, id: string): Promise<CooldownClaim | null> {
  try {
    return await services.cooldowns.confirmation.claim(id);
  } catch (error) {
    if (error instanceof CooldownUnavailableError) {
      throw new ApiError("email_unavailable", undefined, { cause: error });
    }
    throw error;
  }
}

/**
 * Tells the webhook that an address joined or left the confirmed subscribers, after the response
 * (best effort, bounded by `NOTIFY_TIMEOUT_MS`). Logged by subscriber id, never by address. The
 * message id is the change's revision: the same change always carries the same id.
 */
function announce(services: NewsletterServices, type: SubscriberEventType, record: SubscriberRecord): void {
  const events = services.subscriberEvents;
  if (!events) return;
  const at =
    (type === "newsletter.confirmed" ? record.confirmedAt : record.unsubscribedAt) ?? record.updatedAt;
  const who = `subscriber ${shortId(subscriberId(record.email))}`;
  const sending = events
    .send(
      { type, email: record.email, topics: record.topics, at },
      `msg_${record.revision ?? `${type}_${at}`}`,
    )
    .then(
      () => console.info(`[newsletter] ${type} sent to the webhook for ${who}`),
      (error: unknown) =>
        console.warn(
          `[newsletter] ${type} for ${who} not delivered to the webhook: ${withoutAddress(describeFailure(error), record.email)}`,
        ),
    );
  finishInBackground(sending, `the ${type} event for ${who}`);
}

/** Enough of a subscriber id to find the record in the logs, not the address. */
function shortId(id: string): string {
  return id.slice(0, 12);
}

/** An SMTP server's reply may quote the recipient; the logs never carry it. */
function withoutAddress(text: string, email: string): string {
  return text.replace(new RegExp(escapeRegExp(email), "gi"), "<recipient>");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
