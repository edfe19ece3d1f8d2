export { ChannelAlerts, type GaveUp, type GiveUpAlerts } from "./alerts";
export { RETRY_BODY_LIMIT, retryFromQStash } from "./callback";
export { type PendingCounts, pendingCounts, PENDING_COUNTS_TTL_MS } from "./counts";
export { type AttemptResult, Deliveries, type DeliveriesDeps, type RetryPublisher } from "./deliveries";
export {
  DUE_PREFIX,
  FAILED_PREFIX,
  forgetDeliveries,
  LEASE_MS,
  listDue,
  listFailed,
  pendingFolders,
  pendingReferences,
} from "./records";
export { nextAttemptAt } from "./schedule";
export { leaseFor, MAX_NOTIFY_TIMEOUT_MS } from "./lease";
export type { AttemptOutcomes, BriefAcknowledger, DueRecord, FailedRecord, RunCounts, Target } from "./types";
export {
  QStashPublisher,
  type QStashSettings,
  retryDestination,
  type RetryMessage,
  retryMessageSchema,
  RetryMessages,
} from "./qstash";
export { dueDeliveriesJob, SCHEDULER_INTERVAL_MS } from "./scheduler";
