export {
  BriefAcknowledgmentEmail,
  type BriefAcknowledgmentProps,
  briefAcknowledgmentSubject,
  renderBriefAcknowledgment,
} from "./emails/brief-acknowledgment";
export {
  NewsletterConfirmationEmail,
  type NewsletterConfirmationProps,
  newsletterConfirmationSubject,
  renderNewsletterConfirmation,
} from "./emails/newsletter-confirmation";
export { OpsSignInEmail, type OpsSignInProps, opsSignInSubject } from "./emails/ops-sign-in";
export { SITE_NAME, VisitorEmailLayout } from "./layout";
export { EmailUnavailableError, VisitorMailer, type VisitorMessage } from "./mailer";
export { renderEmail, type RenderedEmail } from "./render";
