import type { Config } from "../config";
import { EmailChannel } from "./email";
import { SlackChannel } from "./slack";
import type { Channel } from "./types";
import { WebhookChannel } from "./webhook";

export { attemptChannel, describeFailure, fanOut, forwardedChannels, storedAttachment } from "./fan-out";
export {
  classifyFailure,
  DeliveryError,
  type FailureDetails,
  parseRetryAfter,
  retryableStatus,
} from "./failure";
export { type EmailSettings } from "./email";
export { SmtpSender } from "./smtp";
export { postWebhook } from "./webhook";
export { attachmentFileName } from "./message";
export { type SubscriberEvent, SubscriberEvents, type SubscriberEventType } from "./subscriber-events";
export { CHANNEL_NAMES } from "./types";
export type {
  BriefNotice,
  Channel,
  ChannelName,
  ChannelOutcomes,
  DeliveryOutcome,
  NoticeAttachment,
} from "./types";

/** The configured channels, in the order `forwarded` lists them; none when nothing is set up. */
export function createChannels(config: Config): Channel[] {
  const channels: Channel[] = [];
  if (config.webhook) channels.push(new WebhookChannel(config.webhook.url, config.webhook.secret));
  if (config.email) {
    channels.push(new EmailChannel({ ...config.email, routes: config.emailRoutes }, config.notifyTimeoutMs));
  }
  // The message links the brief's page only where that page can be opened.
  if (config.slack) channels.push(new SlackChannel(config.slack.url, config.ops ? config.siteOrigin : null));
  return channels;
}
