import { Readable } from "node:stream";
import { createTransport, type SendMailOptions } from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import { describe, expect, it } from "vitest";
import { writeMessagesWhole } from "@/lib/notify/smtp";
import { wholeMessage } from "@/lib/notify/whole-message";
import { BriefAcknowledgmentEmail, NewsletterConfirmationEmail, renderEmail } from "@/lib/visitor-email";

/**
 * A message of text written at once (lib/notify/whole-message.ts) is byte for byte the message
 * nodemailer streams: both go through nodemailer's own pipeline here (its stream transport, which
 * builds what the SMTP transport sends), once as they are and once written whole.
 */

/** What nodemailer would send for `message`, with the ids and the date fixed so two sends compare. */
async function sent(message: SendMailOptions, whole: boolean): Promise<Buffer> {
  const transport = createTransport({ streamTransport: true, buffer: true });
  if (whole) writeMessagesWhole(transport);
  const info = await transport.sendMail({
    messageId: "<fixed@studio.example>",
    date: new Date("2026-11-26T10:00:00Z"),
    baseBoundary: "fixedboundary",
    ...message,
  } as SendMailOptions);
  return info.message as Buffer;
}

const from = { name: "Northwind Studio", address: "intake@studio.example" };
const to = [{ name: "", address: "ada@example.com" }];

const long = "word ".repeat(60);
const MESSAGES: [string, SendMailOptions][] = [
  ["short ASCII text (7bit)", { text: "Hello.\nThanks." }],
  ["a long line (quoted-printable)", { text: `${long}\n${long.trim()}` }],
  ["trailing whitespace, tabs and a lone CR", { text: "end with spaces   \n\ttab\rlone cr\r\n \t " }],
  ["mostly non-ASCII (base64)", { text: "Ωμέγα λόγος ευχαριστώ πολύ για το μήνυμά σας" }],
  ["an en dash and quotes", { subject: "We received your brief \u2013 K7QM-3XD9", text: "“quoted” – dash…" }],
  ["html only", { html: `<p>${long}</p>` }],
  ["text and html", { text: "Plain.", html: "<p>Plain = <b>bold</b></p>\n.\n..leading dots" }],
  ["an empty text", { text: "" }],
  ["a text ending in a lone CR", { text: "last line\r" }],
  ["a text ending in LF", { text: "last line\n" }],
  [
    "a reply-to and list headers",
    {
      replyTo: { name: "Ops", address: "ops@studio.example" },
      text: "x",
      html: "<p>x</p>",
      list: { unsubscribe: "https://studio.example/api/newsletter/unsubscribe?token=abc%2Bdef" },
      headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    },
  ],
  ["a line of 998 characters and CRLF", { text: `${"x".repeat(998)}\r\n${"y".repeat(80)}` }],
  [
    "parts given ready-made (raw), as a visitor's email is",
    {
      text: {
        raw: "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nPlain.",
      },
      html: { raw: Buffer.from("Content-Type: text/html; charset=utf-8\r\n\r\n<p>x</p>") },
    },
  ],
];

describe("writeMessagesWhole", () => {
  it.each(MESSAGES)("sends %s byte for byte as nodemailer streams it", async (_name, message) => {
    const full = { from, to, subject: "Subject", ...message };
    const streamed = await sent(full, false);
    expect((await sent(full, true)).toString("latin1")).toBe(streamed.toString("latin1"));
  });

  it("sends the visitor emails byte for byte as nodemailer streams them", async () => {
    const acknowledgment = await renderEmail(
      BriefAcknowledgmentEmail({
        record: {
          reference: "K7QM-3XD9-PTWA-84HC",
          projectType: "ai-system",
          budget: "50k-100k",
          timeline: "asap",
          attachment: { size: 123_456 },
        },
      }),
    );
    const confirmation = await renderEmail(
      NewsletterConfirmationEmail({
        email: "o'brien+<news>@example.com",
        topics: ["AI", "Quantum"],
        confirmUrl: "https://studio.example/newsletter/confirm?token=a.b",
        unsubscribeUrl: "https://studio.example/newsletter/unsubscribe?token=c.d",
        validFor: "7 days",
      }),
    );
    for (const email of [acknowledgment, confirmation]) {
      const full = { from, to, subject: "We received your brief \u2013 K7QM-3XD9-PTWA-84HC", ...email };
      expect((await sent(full, true)).toString("latin1")).toBe((await sent(full, false)).toString("latin1"));
    }
  });

  it("leaves a message with a streamed file to stream, the same bytes in fewer pieces", async () => {
    const file = () => Readable.from([Buffer.alloc(70_000, 7), Buffer.alloc(100_000, 9)]);
    const message = (content: Readable): SendMailOptions => ({
      from,
      to,
      subject: "With a file",
      text: "See the file.",
      attachments: [{ filename: "brief.pdf", contentType: "application/pdf", content }],
    });
    expect(wholeMessage(new MailComposer(message(file())).compile())).toBeNull();
    const streamed = await sent(message(file()), false);
    expect((await sent(message(file()), true)).equals(streamed)).toBe(true);
  });
});
