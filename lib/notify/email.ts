import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { EmailRoutes, Mailbox } from "../config";
import { attachmentFileName, emailText } from "./message";
import { SmtpSender, smtpReplyCodeOf } from "./smtp";
import type { BriefNotice, Channel } from "./types";

export interface EmailSettings {
  smtpUrl: string;
  from: Mailbox;
  to: readonly string[];
  /** `EMAIL_ROUTES`: a brief of a listed project type goes to these addresses instead of `to`. */
  routes?: EmailRoutes;
}

/** Who the ops email of a brief goes to: its project type's route, else `EMAIL_TO`. */
export function emailRecipients(
  settings: Pick<EmailSettings, "to" | "routes">,
  projectType: string,
): readonly string[] {
  const routes: Readonly<Record<string, readonly string[] | undefined>> = settings.routes ?? {};
  return (Object.hasOwn(routes, projectType) ? routes[projectType] : undefined) ?? settings.to;
}

/**
 * Mails each brief to ops through `SMTP_URL`. Success is the SMTP server accepting the message.
 * Every address goes to nodemailer as a structured object, never as header text, so nothing a
 * visitor types can add a header or a recipient. The connection follows the STARTTLS rule of
 * `SmtpSender`: a brief never goes in cleartext where it could cross a network.
 */
export class EmailChannel implements Channel {
  readonly name = "email";
  private readonly sender: SmtpSender;

  constructor(
    private readonly settings: EmailSettings,
    timeoutMs: number,
  ) {
    this.sender = new SmtpSender(settings.smtpUrl, timeoutMs);
  }

  async deliver(notice: BriefNotice, signal: AbortSignal): Promise<number | undefined> {
    const { record, attachment } = notice;
    const { subject, text, html } = emailText(notice);
    // Streamed from the store into the message as it is sent.
    const content = attachment
      ? Readable.fromWeb((await attachment.open(signal)) as WebReadableStream)
      : null;
    const info = await this.sender.send({
      from: { name: this.settings.from.name, address: this.settings.from.address },
      to: emailRecipients(this.settings, record.projectType).map((address) => ({ name: "", address })),
      replyTo: { name: record.name, address: record.email },
      subject,
      text,
      html,
      attachments:
        attachment && content
          ? [
              {
                filename: attachmentFileName(attachment.record),
                contentType: attachment.record.contentType,
                content,
              },
            ]
          : [],
      signal,
    });
    const rejected = info.rejected ?? [];
    if (rejected.length > 0) {
      // The server took the message for the others: it is delivered, but someone is missing it.
      console.warn(
        `[notify] email for brief ${record.reference} refused for ${rejected.join(", ")}; sent to the rest`,
      );
    }
    return smtpReplyCodeOf(info);
  }
}
