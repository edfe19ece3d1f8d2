export {
  type AcknowledgmentOutcome,
  type AttachmentRecord,
  type BriefRecord,
  briefFolder,
  briefRecordSchema,
  type ClientRecord,
  type Folder,
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
export {
  type AcknowledgmentDelivery,
  type AttemptEntry,
  type ChannelDelivery,
  type Delivery,
  type DeliveryInput,
  DELIVERY_STATES,
  deliveryFile,
  DeliveryRecordError,
  type DeliveryState,
  LOG_LENGTH,
  parseDeliveryRecord,
  recordInBackground,
  updateDelivery,
  writeDelivery,
} from "./delivery";
