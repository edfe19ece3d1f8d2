export {
  type AcknowledgmentOutcome,
  type AttachmentRecord,
  type BriefRecord,
  briefFolder,
  briefRecordSchema,
  type ClientRecord,
  type Folder,
  SPAM_REASONS,
  type SpamReason,
  spamVerdict,
  type SpamVerdict,
} from "./record";
export {
  type AttachmentUpload,
  type BriefFile,
  SAVE_DEADLINES,
  type SaveDeadlines,
  saveBrief,
  stagedClaimPath,
  StagedUploadTakenError,
} from "./save";
export { type Delivery, deliveryFile, recordDelivery, writeDelivery } from "./delivery";
