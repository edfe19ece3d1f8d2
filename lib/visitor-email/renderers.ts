import type { BriefAcknowledgmentProps } from "./emails/brief-acknowledgment";
import type { NewsletterConfirmationProps } from "./emails/newsletter-confirmation";
import type { OpsSignInProps } from "./emails/ops-sign-in";
import type { RenderedEmail } from "./render";

/*
 * Each visitor email rendered, with React Email (and html-to-text) loaded by the first email sent
 * rather than with the routes: a server that sends no email never loads them, and a cold start
 * does not wait for them before its first answer.
 */

/** Both bodies of `record`'s acknowledgment. */
export async function renderBriefAcknowledgment(props: BriefAcknowledgmentProps): Promise<RenderedEmail> {
  const [{ BriefAcknowledgmentEmail }, { renderEmail }] = await Promise.all([
    import("./emails/brief-acknowledgment"),
    import("./render"),
  ]);
  return renderEmail(BriefAcknowledgmentEmail(props));
}

/** Both bodies of the newsletter's confirmation email. */
export async function renderNewsletterConfirmation(
  props: NewsletterConfirmationProps,
): Promise<RenderedEmail> {
  const [{ NewsletterConfirmationEmail }, { renderEmail }] = await Promise.all([
    import("./emails/newsletter-confirmation"),
    import("./render"),
  ]);
  return renderEmail(NewsletterConfirmationEmail(props));
}

/** Both bodies of the inbox's sign-in email. */
export async function renderOpsSignIn(props: OpsSignInProps): Promise<RenderedEmail> {
  const [{ OpsSignInEmail }, { renderEmail }] = await Promise.all([
    import("./emails/ops-sign-in"),
    import("./render"),
  ]);
  return renderEmail(OpsSignInEmail(props));
}
