export type { BriefAcknowledgmentProps } from "./emails/brief-acknowledgment";
export type { NewsletterConfirmationProps } from "./emails/newsletter-confirmation";
export type { OpsSignInProps } from "./emails/ops-sign-in";
export { EmailUnavailableError, VisitorMailer, type VisitorMessage } from "./mailer";
export type { RenderedEmail } from "./render";
export { renderBriefAcknowledgment, renderNewsletterConfirmation, renderOpsSignIn } from "./renderers";
export { briefAcknowledgmentSubject, newsletterConfirmationSubject, opsSignInSubject } from "./subjects";
