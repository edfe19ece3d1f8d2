import { createTransport, type Transporter } from "nodemailer";
import type { Mailbox } from "../config";
import { attachmentFileName, emailText } from "./message";
import type { BriefNotice, Channel } from "./types";

export interface EmailSettings {
  smtpUrl: string;
  from: Mailbox;
  to: readonly string[];
}

/**
 * Mails each brief to ops through `SMTP_URL`. Success is the SMTP server accepting the message.
 * Every address goes to nodemailer as a structured object, never as header text, so nothing a
 * visitor types can add a header or a recipient.
 */
export class EmailChannel implements Channel {
  readonly name = "email";
  private readonly transport: Transporter;

  constructor(
    private readonly settings: EmailSettings,
    timeoutMs: number,
  ) {
    this.transport = createTransport({
      url: settings.smtpUrl,
      // Each phase gives up on its own, not only the whole send (which the fan-out's signal bounds).
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      // Message content only ever comes from memory here: never let it name a file or a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  async deliver(notice: BriefNotice, signal: AbortSignal): Promise<void> {
    const { record, attachment } = notice;
    const { subject, text, html } = emailText(notice);
    const info = await this.transport.sendMail({
      from: { name: this.settings.from.name, address: this.settings.from.address },
      to: this.settings.to.map((address) => ({ name: "", address })),
      replyTo: { name: record.name, address: record.email },
      subject,
      text,
      html,
      attachments: attachment
        ? [
            {
              filename: attachmentFileName(attachment.record),
              contentType: attachment.record.contentType,
              content: Buffer.concat(attachment.chunks),
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
  }
}
