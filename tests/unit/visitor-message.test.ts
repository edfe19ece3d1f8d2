import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Mailbox } from "@/lib/config";
import { LinkSigner } from "@/lib/links";
import { newsletterLinks } from "@/lib/newsletter";
import { newReference } from "@/lib/reference";
import { BUDGETS, PROJECT_TYPES, TIMELINES } from "@/lib/schemas/brief";
import { NEWSLETTER_TOPICS } from "@/lib/schemas/newsletter";
import {
  type BriefAcknowledgmentProps,
  briefAcknowledgmentSubject,
  type NewsletterConfirmationProps,
  newsletterConfirmationSubject,
  renderBriefAcknowledgment,
  renderNewsletterConfirmation,
  VisitorMailer,
} from "@/lib/visitor-email";
import { type ReceivedMail, type SmtpTestServer, startSmtpServer } from "../support/smtp";

/**
 * A visitor's email as it arrives: the mailer's message, read back by a mail parser on the other
 * side of a real SMTP session, carries both bodies exactly as rendered (whatever encoding nodemailer
 * chose for them), and the headers the email is meant to have.
 */

const FROMS: Mailbox[] = [
  { name: "Northwind Studio", address: "intake@studio.example" },
  { name: 'Nørdwind Stüdio, "Intake"', address: "intake@studio.example" },
];
const keys = <T extends object>(value: T) => Object.keys(value) as (keyof T & string)[];
/** The header's value as the parser gives it, by its lowercase name. */
const header = (mail: ReceivedMail | undefined, name: string) =>
  mail?.parsed.headers.find((entry) => entry.key === name)?.value;

let smtp: SmtpTestServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.stop();
});
beforeEach(() => {
  smtp.received.length = 0;
});

/** The body as the parser gives it back: nodemailer ends a body it encodes with a line break. */
const arrived = (body: string | undefined) => body?.replace(/\r?\n$/, "");

describe("the acknowledgment as the visitor receives it", () => {
  it("carries both bodies as rendered, for every choice and files of many sizes, and the Reply-To", async () => {
    const sizes = [null, 0, 1, 1023, 123_456, 1024 * 1024, 1.5 * 1024 * 1024, 10 * 1024 * 1024];
    let round = 0;
    for (const projectType of keys(PROJECT_TYPES)) {
      for (const budget of keys(BUDGETS)) {
        for (const timeline of keys(TIMELINES)) {
          round++;
          const size = sizes[round % sizes.length] ?? null;
          const record: BriefAcknowledgmentProps["record"] = {
            reference: newReference(),
            projectType,
            budget,
            timeline,
            attachment: size === null ? null : { size },
          };
          const from = FROMS[round % 2] as Mailbox;
          const email = await renderBriefAcknowledgment({ siteName: "Northwind Studio", record });
          const mailer = new VisitorMailer({ smtpUrl: smtp.url, from }, 3_000);
          await mailer.send({
            to: `sender-${round}@bench.example`,
            subject: briefAcknowledgmentSubject(record.reference),
            ...email,
            replyTo: { name: "Ops", address: "ops@studio.example" },
          });
          const mail = smtp.received.at(-1);
          expect(mail?.envelope).toEqual({ from: from.address, to: [`sender-${round}@bench.example`] });
          expect(mail?.parsed.subject).toBe(briefAcknowledgmentSubject(record.reference));
          expect(mail?.parsed.from).toMatchObject({ name: from.name, address: from.address });
          expect(mail?.parsed.replyTo).toEqual([{ name: "Ops", address: "ops@studio.example" }]);
          expect(arrived(mail?.parsed.text)).toBe(email.text);
          expect(arrived(mail?.parsed.html)).toBe(email.html);
          expect(header(mail, "list-unsubscribe")).toBeUndefined();
        }
      }
    }
    expect(smtp.received).toHaveLength(round);
  }, 60_000);
});

describe("the confirmation as the visitor receives it", () => {
  const signer = new LinkSigner("a-link-signing-secret-of-at-least-32-characters", "https://studio.example");

  it.each([
    ["a plain address", "ada@example.com"],
    ["one with plus, dots and an equals sign", "first.last+news=x@mail.example.co.uk"],
    ["a long one", `${"l".repeat(64)}@${"d".repeat(60)}.example`],
    ["an internationalised domain", "ada@bücher.example"],
    ["one with an apostrophe", "o'brien@example.com"],
    // The form refuses it; the body still shows it, escaped, and the mail goes to a valid address.
    ["markup", "o'brien+<script>alert(1)</script>@example.com", "reader@bench.example"],
  ])(
    "carries both bodies as rendered and the one-click headers, for %s",
    async (_name, address, to = address) => {
      for (const topics of [[], ["AI"], NEWSLETTER_TOPICS.slice(2, 5), [...NEWSLETTER_TOPICS]]) {
        const urls = newsletterLinks(signer, "https://studio.example", `subscriber-${address.length}`);
        const props: NewsletterConfirmationProps = {
          siteName: "Northwind Studio",
          email: address,
          topics,
          confirmUrl: urls.confirm,
          unsubscribeUrl: urls.unsubscribePage,
          validFor: "7 days",
        };
        const email = await renderNewsletterConfirmation(props);
        const mailer = new VisitorMailer({ smtpUrl: smtp.url, from: FROMS[1] as Mailbox }, 3_000);
        await mailer.send({
          to,
          subject: newsletterConfirmationSubject("Northwind Studio"),
          ...email,
          oneClickUnsubscribeUrl: urls.oneClickUnsubscribe,
        });
        const mail = smtp.received.at(-1);
        expect(mail?.envelope.to).toHaveLength(1);
        expect(mail?.parsed.subject).toBe("Confirm your subscription to the Northwind Studio newsletter");
        expect(arrived(mail?.parsed.text)).toBe(email.text);
        expect(arrived(mail?.parsed.html)).toBe(email.html);
        expect(header(mail, "list-unsubscribe")).toBe(`<${urls.oneClickUnsubscribe}>`);
        expect(header(mail, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
      }
    },
  );
});
