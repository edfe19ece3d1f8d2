import type { SendMailOptions, Transporter } from "nodemailer";
import type SMTPPool from "nodemailer/lib/smtp-pool";
import { type SmtpTls, smtpTls } from "../config";
import { loadOnce } from "../load-once";

/** Why a send failed when STARTTLS was required and did not happen: nothing else was sent. */
const STARTTLS_REQUIRED =
  "STARTTLS is required for SMTP_URL (it has credentials or a host that is not loopback) and the server did not complete it; nothing was sent (?requireTLS=false opts out)";

/**
 * Connections are kept open and reused: a new one per message (connect, greeting, EHLO, STARTTLS
 * and login when required, QUIT) cost about a third of each send's CPU time (docs/performance.md).
 * At most 8 per SMTP server, shared by every sender of the process (`sharedTransport`), a few more
 * than nodemailer's default of 5 so a burst of briefs queues less, few enough for a provider's
 * per-client limit; past that, messages queue for a free connection,
 * each still within its own bound and taken out of the queue by its signal when the bound ends.
 * Idle connections close after nodemailer's 4 minutes (below the 5 RFC 5321 asks servers to
 * wait); one the server closed is dropped and replaced, and a message whose connection closes
 * under it is tried again on another.
 */
const POOL = { pool: true, maxConnections: 8, maxMessages: 100 } as const;

/**
 * nodemailer's options for `SMTP_URL`: the URL, as nodemailer reads a connection URL (`tls.*`,
 * `service`, `proxy` and the rest of its query included), and this service's settings beside it.
 * nodemailer lets a URL's query override the options it is given, so `?ignoreTLS=true` would undo
 * `requireTLS`: the URL goes to it without the query options this service sets itself.
 */
export function smtpTransportOptions(smtpUrl: string, timeoutMs: number): SMTPPool.Options {
  const required = smtpTls(smtpUrl) === "starttls-required";
  const settings = {
    ...POOL,
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
  const url = new URL(smtpUrl);
  // `url` too: nodemailer would read a URL given in the query over this one, settings and all.
  for (const key of [...Object.keys(settings), "url"]) url.searchParams.delete(key);
  return { url: url.href, ...settings };
}

type Transport = Transporter<SMTPPool.SentMessageInfo>;

/**
 * One pooled transport per SMTP URL and bound, for the whole process, made at its first message:
 * nodemailer is loaded then, not with the routes, so a server that sends no email never loads it.
 */
const transports = new Map<string, () => Promise<Transport>>();

/**
 * The pool for `smtpUrl`: the ops email, the acknowledgment, the newsletter's confirmations and the
 * inbox's sign-in links all send through the same server, and share its 8 connections rather than
 * opening 8 each.
 */
function sharedTransport(smtpUrl: string, timeoutMs: number): () => Promise<Transport> {
  const key = `${timeoutMs} ${smtpUrl}`;
  let transport = transports.get(key);
  if (!transport) {
    transport = loadOnce(async () => {
      const { createTransport } = await import("nodemailer");
      return createTransport(smtpTransportOptions(smtpUrl, timeoutMs));
    });
    transports.set(key, transport);
  }
  return transport;
}

/**
 * Sends mail through `SMTP_URL` under the STARTTLS rule (`smtpTls` in lib/config/smtp.ts). The one
 * transport every sender of this service uses, so the rule holds for each of them.
 */
export class SmtpSender {
  readonly tls: SmtpTls;
  private readonly transport: () => Promise<Transport>;

  constructor(smtpUrl: string, timeoutMs: number) {
    this.tls = smtpTls(smtpUrl);
    this.transport = sharedTransport(smtpUrl, timeoutMs);
  }

  async send(message: SendMailOptions): Promise<SMTPPool.SentMessageInfo> {
    try {
      const transport = await this.transport();
      return await transport.sendMail(message);
    } catch (error) {
      if (this.tls === "starttls-required" && (error as { code?: unknown }).code === "ETLS") {
        throw new Error(STARTTLS_REQUIRED, { cause: error });
      }
      throw error;
    }
  }
}

/**
 * The reply code of the server's answer to the message (`250` of `250 2.0.0 Ok: queued`), from
 * the last response nodemailer reports; `undefined` when it gave none that starts with one.
 */
export function smtpReplyCodeOf(info: { response?: unknown }): number | undefined {
  const match = typeof info.response === "string" ? /^([2-5]\d\d)\b/.exec(info.response) : null;
  return match ? Number(match[1]) : undefined;
}
