import { createTransport, type SendMailOptions } from "nodemailer";
import { describe, expect, it } from "vitest";
import type { Mailbox } from "@/lib/config";
import { LinkSigner } from "@/lib/links";
import { newsletterLinks } from "@/lib/newsletter";
import { writeMessagesWhole } from "@/lib/notify/smtp";
import { newReference } from "@/lib/reference";
import { BUDGETS, PROJECT_TYPES, TIMELINES } from "@/lib/schemas/brief";
import { NEWSLETTER_TOPICS } from "@/lib/schemas/newsletter";
import {
  BriefAcknowledgmentEmail,
  type BriefAcknowledgmentProps,
  briefAcknowledgmentSubject,
  NewsletterConfirmationEmail,
  type NewsletterConfirmationProps,
  newsletterConfirmationSubject,
  renderBriefAcknowledgment,
  renderEmail,
  renderNewsletterConfirmation,
  type VisitorMessage,
} from "@/lib/visitor-email";
import { visitorMailOptions } from "@/lib/visitor-email/mailer";

/**
 * A visitor's email as the mailer hands it over (bodies filled into templates encoded once,
 * lib/notify/encoded-template.ts, and given as ready-made parts; the message written whole) is byte
 * for byte the message nodemailer composes and streams itself from the same email rendered in full.
 */

const FIXED = {
  messageId: "<0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0@studio.example>",
  baseBoundary: "0123456789abcdef",
  date: new Date("2026-11-26T10:00:00Z"),
};

/** What nodemailer's pipeline makes of `options` (its stream transport builds what SMTP sends). */
async function composed(options: SendMailOptions, whole: boolean): Promise<string> {
  const transport = createTransport({ streamTransport: true, buffer: true });
  if (whole) writeMessagesWhole(transport);
  const info = await transport.sendMail({ ...options, ...FIXED } as SendMailOptions);
  return (info.message as Buffer).toString("latin1");
}

/** The mailer's message for `email` against nodemailer's own for the email rendered in full. */
async function expectSameMessage(
  from: Mailbox,
  message: VisitorMessage,
  full: { html: string; text: string },
) {
  const ours = await composed(visitorMailOptions(from, message), true);
  const theirs = await composed(visitorMailOptions(from, { ...message, ...full, encoded: undefined }), false);
  expect(ours).toBe(theirs);
}

const FROMS: Mailbox[] = [
  { name: "Northwind Studio", address: "intake@studio.example" },
  { name: 'Nørdwind Stüdio, "Intake"', address: "Intake@Stüdio.example" },
];
const keys = <T extends object>(value: T) => Object.keys(value) as (keyof T & string)[];

describe("the acknowledgment as the mailer sends it", () => {
  it("is nodemailer's message, for every choice, files of many sizes, and a reply-to", async () => {
    const projectTypes = keys(PROJECT_TYPES);
    const budgets = keys(BUDGETS);
    const timelines = keys(TIMELINES);
    const sizes = [null, 0, 1, 1023, 123_456, 1024 * 1024, 1.5 * 1024 * 1024, 10 * 1024 * 1024];
    const references = () => [newReference(), "NW-20261123-ABCD", "X", "K7QM-3XD9-PTWA-84HC-EXTRA=="];
    let round = 0;
    for (const projectType of projectTypes) {
      for (const budget of budgets) {
        for (const timeline of timelines) {
          round++;
          const size = sizes[round % sizes.length] ?? null;
          const reference = references()[round % 4] as string;
          const record: BriefAcknowledgmentProps["record"] = {
            reference,
            projectType,
            budget,
            timeline,
            attachment: size === null ? null : { size },
          };
          const email = await renderBriefAcknowledgment(record);
          expect(email.encoded).toBeDefined();
          const message: VisitorMessage = {
            to: `sender-${round}@bench.example`,
            subject: briefAcknowledgmentSubject(reference),
            ...email,
            ...(round % 2 ? { replyTo: { name: "Ops", address: "ops@studio.example" } } : {}),
          };
          await expectSameMessage(
            FROMS[round % 2] as Mailbox,
            message,
            await renderEmail(BriefAcknowledgmentEmail({ record })),
          );
        }
      }
    }
  }, 60_000);
});

describe("the confirmation as the mailer sends it", () => {
  const signer = new LinkSigner("a-link-signing-secret-of-at-least-32-characters", "https://studio.example");
  const now = new Date("2026-11-26T10:00:00Z");

  it.each([
    ["a plain address", "ada@example.com", true],
    ["one with plus, dots and an equals sign", "first.last+news=x@mail.example.co.uk", true],
    ["a long one", `${"l".repeat(64)}@${"d".repeat(60)}.example`, true],
    ["an internationalised domain", "ada@bücher.example", false],
    ["one with an apostrophe (rendered in full)", "o'brien@example.com", false],
    ["markup (rendered in full)", "o'brien+<script>alert(1)</script>@example.com", false],
  ])("is nodemailer's message, for %s", async (_name, address, filled) => {
    for (const topics of [[], ["AI"], NEWSLETTER_TOPICS.slice(2, 5), [...NEWSLETTER_TOPICS]]) {
      const urls = newsletterLinks(signer, "https://studio.example", `subscriber-${address.length}`, now);
      const props: NewsletterConfirmationProps = {
        email: address,
        topics,
        confirmUrl: urls.confirm,
        unsubscribeUrl: urls.unsubscribePage,
        validFor: "7 days",
      };
      const email = await renderNewsletterConfirmation(props);
      expect(email.encoded !== undefined).toBe(filled);
      const message: VisitorMessage = {
        to: address,
        subject: newsletterConfirmationSubject,
        ...email,
        oneClickUnsubscribeUrl: urls.oneClickUnsubscribe,
      };
      for (const from of FROMS) {
        await expectSameMessage(from, message, await renderEmail(NewsletterConfirmationEmail(props)));
      }
    }
  });
});

describe("the envelope the mailer gives nodemailer", () => {
  it("is the one nodemailer works out from the From and To headers", async () => {
    const envelopeOf = async (options: SendMailOptions) => {
      const transport = createTransport({ streamTransport: true, buffer: true });
      const info = await transport.sendMail({ ...options, ...FIXED } as SendMailOptions);
      return info.envelope;
    };
    const visitors = [
      "ada@example.com",
      "Ada.Lovelace+Briefs@Example.COM",
      "o'brien@example.ie",
      "zoë@bücher.example",
      "ada@bücher.example",
      "  padded@example.com ",
    ];
    for (const from of [...FROMS, { name: "", address: "intake@studio.example" }]) {
      for (const to of visitors) {
        const options = visitorMailOptions(from, { to, subject: "x", html: "<p>x</p>", text: "x" });
        expect(options.envelope).toBeDefined();
        const derived = await envelopeOf({ ...options, envelope: undefined });
        expect(await envelopeOf(options)).toEqual(derived);
      }
    }
  });
});
