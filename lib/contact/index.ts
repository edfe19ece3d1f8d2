export { CONTACT_BODY_LIMIT, CONTACT_FORM_LIMITS, validateSubmission } from "./submission";
export type { Submission } from "./submission";
export { describeClient, receiveBrief } from "./receive";
export type { Receipt } from "./receive";
export { contactFormLocation, readContactFormReturn, thankYouLocation } from "./redirect";
export type { ContactFormReturn } from "./redirect";
