import { createTransport, type SendMailOptions, type Transporter } from "nodemailer";
import { parseConnectionUrl } from "nodemailer/lib/shared";
import type { SMTPSentMessageInfo, SMTPTransportOptions } from "nodemailer/lib/smtp-transport";
import { type SmtpTls, smtpTls } from "../config";

/** Why a send failed when STARTTLS was required and did not happen: nothing else was sent. */
const STARTTLS_REQUIRED =
  "STARTTLS is required for SMTP_URL (it has credentials or a host that is not loopback) and the server did not complete it; nothing was sent (?requireTLS=false opts out)";

/**
 * nodemailer's options for `SMTP_URL`: what the URL says, read by nodemailer's own parser, then
 * this service's settings over it. Not `{ url, ...settings }`: nodemailer lets a URL's query
 * override explicit options, so `?ignoreTLS=true` would have undone `requireTLS`.
 */
export function smtpTransportOptions(smtpUrl: string, timeoutMs: number): SMTPTransportOptions {
  const required = smtpTls(smtpUrl) === "starttls-required";
  return {
    ...(parseConnectionUrl(smtpUrl) as SMTPTransportOptions),
    // Each phase gives up on its own, not only the whole send (which the caller's signal bounds).
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    // Message content only ever comes from memory here: never let it name a file or a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
    // STARTTLS or nothing: nodemailer then fails before AUTH and MAIL when the server does not
    // upgrade, and sends STARTTLS even when the server's answer to EHLO does not offer it.
    ...(required ? { requireTLS: true, ignoreTLS: false, opportunisticTLS: false } : {}),
  };
}

/**
 * Sends mail through `SMTP_URL` under the STARTTLS rule (`smtpTls` in lib/config.ts). The one
 * transport every sender of this service uses, so the rule holds for each of them.
 */
export class SmtpSender {
  readonly tls: SmtpTls;
  private readonly transport: Transporter<SMTPSentMessageInfo>;

  constructor(smtpUrl: string, timeoutMs: number) {
    this.tls = smtpTls(smtpUrl);
    this.transport = createTransport(smtpTransportOptions(smtpUrl, timeoutMs));
  }

  async send(message: SendMailOptions): Promise<SMTPSentMessageInfo> {
    try {
      return await this.transport.sendMail(message);
    } catch (error) {
      if (this.tls === "starttls-required" && (error as { code?: unknown }).code === "ETLS") {
        throw new Error(STARTTLS_REQUIRED, { cause: error });
      }
      throw error;
    }
  }
}
