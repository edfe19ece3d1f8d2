export { parseInvocation, runInboxTool, USAGE } from "./cli";
export type { Invocation, Output } from "./cli";
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
export { csvCell, csvRecord, EXPORT_CSV_HEADER, exportCsvRecord } from "./csv";
export { erase, type ErasePlan, type EraseResult, planErase } from "./erase";
export { InboxRecordError, OpsError, UsageError } from "./errors";
export {
  acknowledgmentResult,
  budgetLabel,
  deliveryStatus,
  exportRow,
  projectTypeLabel,
  timelineLabel,
  utcTime,
  wrap,
} from "./format";
export { moveToInbox, type NotSpamResult } from "./not-spam";
export {
  attachmentStart,
  findBrief,
  openAttachment,
  readAttachment,
  readBriefs,
  readSubscribers,
} from "./reader";
export type { StoredBrief } from "./records";
export { needsRedelivery, planRedelivery, redeliverBrief, stillFailing } from "./redeliver";
export type { RedeliveryResult } from "./redeliver";
export {
  type BriefFilter,
  type BriefPage,
  filteredBriefs,
  filterQuery,
  NO_FILTER,
  PAGE_SIZE,
  parseFilter,
  searchBriefs,
} from "./search";
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
export { type BriefSummary, monthSummaries } from "./summary";
