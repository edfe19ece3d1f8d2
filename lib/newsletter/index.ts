export {
  cancelSubscription,
  confirmSubscription,
  type NewsletterServices,
  requestSubscription,
  type SubscribeOutcome,
} from "./consent";
export {
  CONFIRM_ACTION,
  CONFIRM_LINK_VALID_MS,
  LINK_MESSAGES,
  newsletterLinks,
  subscriberOfToken,
  UNSUBSCRIBE_ACTION,
} from "./links";
export {
  LINK_BODY_LIMIT,
  NEWSLETTER_BODY_LIMIT,
  parseSubscription,
  parseSubscriptionForm,
  parseTokenForm,
  parseTokenRequest,
} from "./request";
export { linkPageLocation, type LinkProblem, newsletterLocation } from "./redirect";
export {
  confirmSubscriber,
  readSubscriber,
  SUBSCRIBER_STATUSES,
  subscribe,
  subscriberId,
  subscriberPath,
  subscriberPathById,
  unsubscribeSubscriber,
} from "./subscribers";
export type {
  ConfirmResult,
  SubscribeResult,
  SubscriberRecord,
  SubscriberStatus,
  SubscriptionRequest,
  UnsubscribeResult,
} from "./subscribers";
