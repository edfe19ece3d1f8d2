export {
  CONTACT_BODY_LIMIT,
  CONTACT_FORM_LIMITS,
  HONEYPOT_FIELD,
  STAGED_UPLOAD_FIELD,
  validateSubmission,
} from "./submission";
export type { Submission } from "./submission";
export { AttachmentIntake } from "./attachment";
export { describeClient, receiveBrief } from "./receive";
export type { BriefIntakeServices, Receipt } from "./receive";
export { contactFormLocation, readContactFormReturn, thankYouLocation } from "./redirect";
export type { ContactFormReturn } from "./redirect";
export {
  acceptsStagedUploads,
  claimStagedUpload,
  collectStaleUploads,
  issueUploadToken,
  parseUploadTokenRequest,
  STAGED_UPLOAD_MAX_AGE_MS,
  UPLOAD_TOKEN_BODY_LIMIT,
} from "./staging";
