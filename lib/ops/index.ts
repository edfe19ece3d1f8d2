export { parseInvocation, runInboxTool, USAGE } from "./cli";
export type { Invocation, Output } from "./cli";
export { csvCell, csvRecord } from "./csv";
export { InboxRecordError, OpsError, UsageError } from "./errors";
export { deliveryStatus, exportRow, wrap } from "./format";
export { findBrief, readAttachment, readBriefs, readSubscribers } from "./reader";
export type { StoredBrief } from "./records";
export { needsRedelivery, planRedelivery, redeliverBrief, stillFailing } from "./redeliver";
export type { RedeliveryResult } from "./redeliver";
