export { NEWSLETTER_BODY_LIMIT, parseSubscription, parseSubscriptionForm } from "./request";
export { newsletterLocation } from "./redirect";
export { subscribe, subscriberPath } from "./subscribers";
export type { SubscribeOutcome, SubscriberRecord } from "./subscribers";
