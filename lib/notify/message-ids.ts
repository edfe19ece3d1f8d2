import { randomUUID } from "node:crypto";
import MimeNode from "nodemailer/lib/mime-node";

/**
 * A message's Message-ID and multipart boundary, in the form nodemailer makes them
 * (`<8-4-4-4-12 hex@the sender's domain>`, 16 hex digits shared by every boundary of the message),
 * made here for a sender whose address never changes. nodemailer makes them with eight
 * `crypto.randomBytes` calls a message (through Next's wrapper of `node:crypto` on the server) and
 * parses and punycodes the From address again for the domain; here the domain is worked out once,
 * by nodemailer's own code, and the random digits come from `randomUUID`, which draws on a cache of
 * entropy (docs/performance.md).
 */
export class MessageIds {
  private readonly domain: string;

  constructor(from: { name: string; address: string }) {
    // What `MimeNode._generateMessageId` takes: the envelope's sender, as nodemailer normalises it.
    const node = new MimeNode("text/plain", { baseBoundary: "unused" });
    node.setHeader("From", { name: from.name, address: from.address });
    this.domain = (node.getEnvelope().from || "localhost").split("@").pop() as string;
  }

  /** Fields for nodemailer's `sendMail`: `messageId` and `baseBoundary`. */
  next(): { messageId: string; baseBoundary: string } {
    return {
      messageId: `<${randomUUID()}@${this.domain}>`,
      baseBoundary: randomUUID().replaceAll("-", "").slice(0, 16),
    };
  }
}
