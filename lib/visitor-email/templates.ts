/**
 * The emails' React Email components and their renderer, for a reader that wants them as they are
 * (the tests, a preview). The service renders through `renderers.ts`, which loads them on first use.
 */
export { BriefAcknowledgmentEmail } from "./emails/brief-acknowledgment";
export { NewsletterConfirmationEmail } from "./emails/newsletter-confirmation";
export { OpsSignInEmail } from "./emails/ops-sign-in";
export { VisitorEmailLayout } from "./layout";
export { renderEmail } from "./render";
