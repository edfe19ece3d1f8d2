/**
 * The ops domain: reading the inbox, and each ops action once (the work and its audit entry),
 * used alike by the inbox on the web (lib/ops-web, app/inbox, app/api/ops) and the ops tool
 * (lib/ops-cli). Actions take narrow dependencies (`deps.ts`) and throw the API's errors
 * (`ApiError`) and the store's (`StoreUnavailableError`); each adapter words them its own way.
 */
export { addBriefNote, changeStatus, requireBrief } from "./actions/brief-state";
export { downloadAttachment } from "./actions/download";
export { eraseAddress } from "./actions/erase";
export { exportBriefs } from "./actions/export";
export { collectGarbage, type GarbageCollected, type GarbageOptions, type Housekeeping } from "./actions/gc";
export { markNotSpam, type NotSpamResult } from "./actions/not-spam";
export { exportPerson } from "./actions/person";
export { exportSubscribers } from "./actions/export-subscribers";
export { redeliverOne } from "./actions/redeliver";
export {
  AUDIT_ACTIONS,
  AUDIT_PAGE_SIZE,
  type AuditAction,
  type AuditEntry,
  type AuditTarget,
  auditTargetText,
  readAudit,
  recordAudit,
} from "./audit";
export { csvCell, csvRecord } from "./csv";
export type { Acting, InboxStore, NotifyingInbox } from "./deps";
export { erase, type ErasePlan, type EraseResult, eraseFolders, planErase } from "./erase";
export { InboxRecordError, OpsError } from "./errors";
export { EXPORT_COLUMNS, EXPORT_CSV_HEADER, exportCsvRecord, exportRow, type ExportRow } from "./export";
export {
  acknowledgmentResult,
  budgetLabel,
  deliveryStatus,
  projectTypeLabel,
  spamReasonText,
  timelineLabel,
  utcTime,
  verificationLabel,
} from "./labels";
export { findBrief } from "./find";
export { attachmentStart, openAttachment, readAttachment, readBriefs, readSubscribers } from "./reader";
export { type ListAround, listAroundBrief, type ListNeighbour } from "./list-around";
export { pendingBriefs } from "./pending";
export type { PersonBrief, PersonData } from "./person";
export type { StoredBrief } from "./records";
export {
  needsRedelivery,
  planRedelivery,
  redeliverBrief,
  type RedeliveryOptions,
  type RedeliveryResult,
  stillFailing,
} from "./redeliver";
export { applyRetention, PENDING_SUBSCRIBER_MAX_AGE_MS, type RetentionResult } from "./retention";
export {
  type BriefFilter,
  type BriefPage,
  DELIVERY_MARKS,
  type DeliveryMark,
  deliveryMarks,
  filterQuery,
  isDeliveryMark,
  NO_FILTER,
  PAGE_SIZE,
  parseFilter,
  type PendingDeliveries,
} from "./list-filter";
export { filteredBriefs, searchBriefs } from "./search";
export {
  addNote,
  BRIEF_STATUSES,
  type BriefNote,
  type BriefState,
  type BriefStatus,
  isBriefStatus,
  NOTE_MAX_LENGTH,
  noteProblem,
  setStatus,
} from "./state";
export { type BriefSummary } from "./summary";
export { readSubscriberIndex, rebuildSubscriberIndex, type SubscriberSummary } from "./subscriber-index";
export {
  NO_SUBSCRIBER_FILTER,
  parseSubscriberFilter,
  SUBSCRIBER_COLUMNS,
  type SubscriberCsvFields,
  subscriberCsvRecord,
  subscriberCsvRow,
  type SubscriberFilter,
  subscriberFilterQuery,
  type SubscriberPage,
  subscriberPage,
  SUBSCRIBERS_CSV_HEADER,
} from "./subscriber-list";
export { indexDeliveryChange } from "./index-update";
export { type Coverage, reindex } from "./rebuild";
