import { Readable, Transform, type TransformCallback } from "node:stream";
import { createTransport, type SendMailOptions, type Transporter } from "nodemailer";
import type MimeNode from "nodemailer/lib/mime-node";
import { parseConnectionUrl } from "nodemailer/lib/shared";
import type { SMTPSentMessageInfo, SMTPTransportOptions } from "nodemailer/lib/smtp-transport";
import { type SmtpTls, smtpTls } from "../config";
import { wholeMessage } from "./whole-message";

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

/** One pooled transport per SMTP URL and bound, for the whole process. */
const transports = new Map<string, Transporter<SMTPSentMessageInfo>>();

/**
 * The pool for `smtpUrl`: the ops email, the acknowledgment, the newsletter's confirmations and the
 * inbox's sign-in links all send through the same server, and share its 8 connections rather than
 * opening 8 each.
 */
function sharedTransport(smtpUrl: string, timeoutMs: number): Transporter<SMTPSentMessageInfo> {
  const key = `${timeoutMs} ${smtpUrl}`;
  let transport = transports.get(key);
  if (!transport) {
    transport = createTransport({ ...smtpTransportOptions(smtpUrl, timeoutMs), ...POOL });
    writeMessagesWhole(transport);
    transports.set(key, transport);
  }
  return transport;
}

/**
 * Makes `transport` write each message of text at once (`wholeMessage`), and any other (one with a
 * file) in writes of up to `COALESCED_BYTES`: the same bytes either way.
 */
export function writeMessagesWhole(transport: Transporter): void {
  transport.use("stream", (mail, done) => {
    const whole = wholeMessage(mail.message);
    if (whole) {
      // The raw content is the whole message: the parts in it are not streamed after it again.
      mail.message.setRaw(whole).multipart = false;
      readWhole(mail.message, whole);
    } else mail.message.transform(() => new CoalescedWrites());
    done();
  });
}

/** nodemailer's own stages after a message's content; none of them is ever added here. */
interface ReadStages {
  _transforms: unknown[];
  _processFuncs: unknown[];
  newline?: unknown;
}

/**
 * Hands the sender `whole` as one chunk, with the final newline nodemailer's `LastNewline` adds,
 * unless a stage would still change it (a transform, DKIM, newline conversion: none is set by this
 * service). nodemailer's `createReadStream` joins a `PassThrough`, a timer turn per step and
 * `LastNewline` with `stream.pipeline`, whose `AbortController` and finishing `DOMException` cost
 * more than the one write they carry (docs/performance.md). The SMTP session still dot-stuffs it.
 */
function readWhole(message: MimeNode, whole: Buffer): void {
  const stages = message as unknown as ReadStages;
  if (stages._transforms.length > 0 || stages._processFuncs.length > 0 || stages.newline) return;
  const bytes = withFinalNewline(whole);
  message.createReadStream = () =>
    new Readable({
      read() {
        this.push(bytes);
        this.push(null);
      },
    });
}

/** The bytes as `LastNewline` ends them: CRLF added after anything but LF, LF after a lone CR. */
function withFinalNewline(bytes: Buffer): Buffer {
  const last = bytes.length > 0 ? bytes[bytes.length - 1] : undefined;
  if (last === 0x0a) return bytes;
  return Buffer.concat([bytes, Buffer.from(last === 0x0d ? "\n" : "\r\n")]);
}

/** What `CoalescedWrites` gathers before it passes it on: an email of text, whole; a file, in pieces. */
const COALESCED_BYTES = 64 * 1024;

/**
 * Gathers a message's many small pieces (each header block, boundary and encoded part, as
 * nodemailer produces them) into writes of up to `COALESCED_BYTES`: each piece was a socket write of
 * its own, and those writes were the largest single cost of sending a visitor's email (profile in
 * docs/performance.md). The bytes are the same, in the same order; a message with a file still
 * streams, never more than about `COALESCED_BYTES` of it held here.
 */
class CoalescedWrites extends Transform {
  private pieces: Buffer[] = [];
  private bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.pieces.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes >= COALESCED_BYTES) this.passOn();
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.bytes > 0) this.passOn();
    done();
  }

  private passOn(): void {
    this.push(this.pieces.length === 1 ? this.pieces[0] : Buffer.concat(this.pieces, this.bytes));
    this.pieces = [];
    this.bytes = 0;
  }
}

/**
 * Sends mail through `SMTP_URL` under the STARTTLS rule (`smtpTls` in lib/config/smtp.ts). The one
 * transport every sender of this service uses, so the rule holds for each of them.
 */
export class SmtpSender {
  readonly tls: SmtpTls;
  private readonly transport: Transporter<SMTPSentMessageInfo>;

  constructor(smtpUrl: string, timeoutMs: number) {
    this.tls = smtpTls(smtpUrl);
    this.transport = sharedTransport(smtpUrl, timeoutMs);
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
