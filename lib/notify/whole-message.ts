import { Encoder as Base64Encoder } from "nodemailer/lib/base64";
import type MimeNode from "nodemailer/lib/mime-node";
import { Encoder as QpEncoder } from "nodemailer/lib/qp";
import type { Transform } from "node:stream";

/**
 * A message whose every part is already in memory (an email of text, as every email to a visitor
 * is), written out at once: the same bytes nodemailer's `MimeNode.stream` writes, part by part,
 * through a stream and a timer turn per header block, boundary and encoded body. That machinery
 * cost more CPU than everything else in sending such a message (docs/performance.md), for a few
 * kilobytes. nodemailer then sends the bytes as the message's raw content, through the same
 * transforms, final newline and dot-stuffing as before.
 */

/** What is read of a node: nodemailer's own fields, some of them internal. */
interface NodeFields {
  content?: unknown;
  childNodes: MimeNode[];
  multipart?: string | false;
  boundary?: string | false;
  contentType?: string;
  _raw?: unknown;
}

/**
 * The message `root` would stream, or `null` when a part is not plainly in memory (a stream, a
 * file or a URL to read, raw content of its own): such a message is left to stream as it is.
 */
export function wholeMessage(root: MimeNode): Buffer | null {
  const pieces: Buffer[] = [];
  return appendNode(root, pieces) ? Buffer.concat(pieces) : null;
}

/**
 * `MimeNode.stream`, at once: headers, the encoded content, then each child between boundaries; or
 * a node's raw content (headers and body ready-made, as a visitor email's parts are) as it is.
 */
function appendNode(node: MimeNode, pieces: Buffer[]): boolean {
  const fields = node as unknown as NodeFields;
  const { _raw: raw, content } = fields;
  if (raw) {
    if (typeof raw !== "string" && !Buffer.isBuffer(raw)) return false;
    pieces.push(typeof raw === "string" ? Buffer.from(raw) : raw);
  } else {
    const body = typeof content === "string" || Buffer.isBuffer(content) ? content : null;
    if (content && body === null) return false;
    const transferEncoding = node.getTransferEncoding();
    pieces.push(Buffer.from(`${node.buildHeaders()}\r\n\r\n`));
    if (body) pieces.push(...encoded(Buffer.from(body), transferEncoding, fields.contentType));
  }
  if (fields.multipart) {
    const { boundary, childNodes } = fields;
    for (const [index, child] of childNodes.entries()) {
      pieces.push(Buffer.from(`${index > 0 ? "\r\n" : ""}--${String(boundary)}\r\n`));
      if (!appendNode(child, pieces)) return false;
    }
    pieces.push(Buffer.from(`\r\n--${String(boundary)}--\r\n`));
  }
  return true;
}

/** The content as nodemailer's encoders put it out, given it as the one chunk its stream would have. */
function encoded(content: Buffer, transferEncoding: string | false, contentType = ""): Buffer[] {
  if (transferEncoding === "quoted-printable") {
    // Outside text a lone CR or LF is data (as `MimeNode.stream` has it).
    return drained(new QpEncoder({ binary: !/^text\//i.test(contentType) }), content);
  }
  if (transferEncoding === "base64") return drained(new Base64Encoder({}), content);
  return [content];
}

/** Runs an encoder's transform and flush on `input` at once, collecting what it pushes. */
function drained(encoder: Transform, input: Buffer): Buffer[] {
  const out: Buffer[] = [];
  encoder.push = (chunk: Buffer | string | null, encoding?: BufferEncoding) => {
    if (chunk !== null) out.push(typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk);
    return true;
  };
  const failed = (error?: Error | null) => {
    if (error) throw error;
  };
  encoder._transform(input, "buffer" as BufferEncoding, failed);
  encoder._flush?.(failed);
  return out;
}
