import type { SendMailOptions } from "nodemailer";
import type { Mailbox } from "../config";
import { DEFAULT_SITE_NAME } from "../config/site";
import { SmtpSender, smtpReplyCodeOf } from "../notify/smtp";
import { withTimeout } from "../timeout";
import type { RenderedEmail } from "./render";

/** One email to one visitor. */
export interface VisitorMessage extends RenderedEmail {
  /** The visitor's address, handed to the mailer as a structured value, never pasted into a header. */
  to: string;
  subject: string;
  /**
   * Set for every email to a subscriber: `SITE_URL/api/newsletter/unsubscribe?token=…`, sent as
   * `List-Unsubscribe` with `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058), so a
   * mail provider's own unsubscribe button works with one POST.
   */
  oneClickUnsubscribeUrl?: string;
  replyTo?: Mailbox;
}

// Control characters never reach a header, whatever a caller passes.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

/**
 * What nodemailer's `sendMail` is given for `message` from `from`: the addresses as structured
 * values, the subject without control characters, both bodies for nodemailer to encode, and for a
 * subscriber the one-click unsubscribe headers.
 */
export function visitorMailOptions(from: Mailbox, message: VisitorMessage): SendMailOptions {
  return {
    from: { name: from.name, address: from.address },
    to: [{ name: "", address: message.to }],
    ...(message.replyTo ? { replyTo: { ...message.replyTo } } : {}),
    subject: message.subject.replace(CONTROL, " "),
    text: message.text,
    html: message.html,
    ...(message.oneClickUnsubscribeUrl
      ? {
          list: { unsubscribe: message.oneClickUnsubscribeUrl },
          headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
        }
      : {}),
  };
}

/** The email could not be handed to the SMTP server within the bound: answered as 503 `email_unavailable`. */
export class EmailUnavailableError extends Error {
  override name = "EmailUnavailableError";
}

/**
 * Sends emails to visitors through `SMTP_URL` from `EMAIL_FROM`: the same `SmtpSender`, with its
 * STARTTLS rule, as the ops channel. Each send is bounded by `NOTIFY_TIMEOUT_MS` in all (every
 * SMTP phase too), and succeeds when the server accepted the message for the visitor.
 */
export class VisitorMailer {
  private readonly sender: SmtpSender;

  /** What the emails call the site (`SITE_NAME`): their brand line, reasons and subjects. */
  readonly siteName: string;

  constructor(
    private readonly settings: { smtpUrl: string; from: Mailbox; siteName?: string },
    private readonly timeoutMs: number,
  ) {
    this.sender = new SmtpSender(settings.smtpUrl, timeoutMs);
    this.siteName = settings.siteName ?? DEFAULT_SITE_NAME;
  }

  /**
   * Resolves once the SMTP server accepted the message, with its reply code when it gave one;
   * throws `EmailUnavailableError` otherwise.
   */
  async send(message: VisitorMessage): Promise<number | undefined> {
    // The signal takes a message the bound gave up on out of the pool's queue (or off its
    // connection), so it is never sent after the caller was told it was not.
    const sending = (signal: AbortSignal) =>
      this.sender.send({ ...visitorMailOptions(this.settings.from, message), signal });
    try {
      const info = await withTimeout(
        this.timeoutMs,
        sending,
        `no answer from the SMTP server within ${this.timeoutMs} ms`,
      );
      if ((info.rejected ?? []).length > 0 || (info.accepted ?? []).length === 0) {
        throw new Error("the SMTP server refused the recipient");
      }
      return smtpReplyCodeOf(info);
    } catch (error) {
      throw new EmailUnavailableError("The email could not be sent", { cause: error });
    }
  }
}
