export { NEWSLETTER_BODY_LIMIT, parseSubscription } from "./request";
export { subscribe, subscriberPath } from "./subscribers";
export type { SubscribeOutcome, SubscriberRecord } from "./subscribers";
