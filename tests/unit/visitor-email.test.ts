import { render } from "@react-email/render";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type BriefAcknowledgmentProps,
  briefAcknowledgmentSubject,
  EmailUnavailableError,
  newsletterConfirmationSubject,
  opsSignInSubject,
  VisitorMailer,
} from "@/lib/visitor-email";
import {
  BriefAcknowledgmentEmail,
  NewsletterConfirmationEmail,
  OpsSignInEmail,
  renderEmail,
} from "@/lib/visitor-email/templates";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";

/** The module for emails to visitors: one React Email source for both bodies, sent through a real SMTP server. */

const HOSTILE = "o'brien+<script>alert(1)</script>@example.com";
const CONFIRM = "https://studio.example/newsletter/confirm?token=abc.def";
const SITE = "Northwind Studio";
const UNSUBSCRIBE = "https://studio.example/newsletter/unsubscribe?token=ghi.jkl";

describe("renderEmail", () => {
  it("renders both bodies from one component: the visitor's text escaped in HTML, links whole in the text", async () => {
    const { html, text } = await renderEmail(
      NewsletterConfirmationEmail({
        siteName: SITE,
        email: HOSTILE,
        topics: ["AI", "Quantum"],
        confirmUrl: CONFIRM,
        unsubscribeUrl: UNSUBSCRIBE,
        validFor: "7 days",
      }),
    );
    expect(html).not.toContain("<script>");
    expect(html).toContain("o&#x27;brien+&lt;script&gt;alert(1)&lt;/script&gt;@example.com");
    expect(html).toContain(`href="${CONFIRM}"`);
    expect(html).toContain(`href="${UNSUBSCRIBE}"`);
    expect(html).not.toMatch(/<img|src=|url\(/i);
    expect(text).toContain(HOSTILE);
    expect(text).toContain(CONFIRM);
    // Each link ends its line: no punctuation a mail client could take for part of it.
    for (const link of [CONFIRM, UNSUBSCRIBE])
      expect(text).toMatch(new RegExp(`${link.replace(/[.?]/g, "\\$&")}$`, "m"));
    expect(text).toContain("AI, Quantum");
    expect(text).toContain("7 days");
  });
});

/** A brief as stored, each visitor-typed field carrying a marker an acknowledgment must never repeat. */
const MARKED_BRIEF = {
  reference: "NW-20261123-ABCD",
  receivedAt: "2026-11-23T10:00:00.000Z",
  name: "Name-Marker-7f3a Buy pills at https://spam.example/name",
  email: "victim-marker-2c9e@example.com",
  company: "Company-Marker-51bd https://spam.example/company",
  role: "Role-Marker-a04e",
  projectType: "ai-system",
  budget: "50k-100k",
  timeline: "3-6-months",
  description: "Description-Marker-e81c: click https://spam.example/offer?x=1&y=2 <b>now</b>",
  attachment: {
    filename: "attachment.pdf",
    originalName: "Filename-Marker-93d2 https-spam.example.pdf",
    contentType: "application/pdf",
    size: 123_456,
    sha256: "0".repeat(64),
  },
} as const;

const MARKERS = [
  "Name-Marker-7f3a",
  "victim-marker-2c9e",
  "Company-Marker-51bd",
  "Role-Marker-a04e",
  "Description-Marker-e81c",
  "Filename-Marker-93d2",
  "spam.example",
];

describe("the acknowledgment repeats nothing the visitor typed", () => {
  it.each([
    ["with an attachment", MARKED_BRIEF],
    ["without one", { ...MARKED_BRIEF, attachment: null }],
  ])(
    "%s: subject, text and HTML carry no name, address, company, role, description or file name",
    async (_, record) => {
      const { html, text } = await renderEmail(BriefAcknowledgmentEmail({ siteName: SITE, record }));
      const subject = briefAcknowledgmentSubject(record.reference);
      for (const body of [subject, text, html]) {
        for (const marker of MARKERS) expect(body).not.toContain(marker);
      }
      // What it keeps: the reference, the choices as labels, the file's size, what happens next.
      expect(subject).toContain(record.reference);
      for (const expected of [
        record.reference,
        "Project type: AI system",
        "Budget: $50k-$100k",
        "Timeline: 3-6 months",
        "A partner reads every brief within two working days.",
      ]) {
        expect(text).toContain(expected);
      }
      if (record.attachment) expect(text).toContain("Attachment: a file (120.6 KB)");
      else expect(text).toContain("Attachment: none");
    },
  );
});

describe("the site's name (SITE_NAME)", () => {
  it("is what every email and subject calls the site, and no other name is", async () => {
    const siteName = "Acme Rockets";
    const emails = [
      BriefAcknowledgmentEmail({ siteName, record: MARKED_BRIEF }),
      NewsletterConfirmationEmail({
        siteName,
        email: "ada@example.com",
        topics: ["AI"],
        confirmUrl: CONFIRM,
        unsubscribeUrl: UNSUBSCRIBE,
        validFor: "7 days",
      }),
      OpsSignInEmail({ siteName, signInUrl: CONFIRM, validFor: "15 minutes" }),
    ];
    for (const email of emails) {
      const { html, text } = await renderEmail(email);
      for (const body of [html, text]) {
        expect(body).toContain("Acme Rockets");
        expect(body).not.toContain("Northwind");
      }
    }
    expect(newsletterConfirmationSubject(siteName)).toBe(
      "Confirm your subscription to the Acme Rockets newsletter",
    );
    expect(opsSignInSubject(siteName)).toBe("Sign in to the Acme Rockets inbox");
  });
});

describe("renderEmail renders once", () => {
  const brief: BriefAcknowledgmentProps["record"] = MARKED_BRIEF;
  const emails = {
    acknowledgment: BriefAcknowledgmentEmail({ siteName: SITE, record: brief }),
    "acknowledgment without attachment": BriefAcknowledgmentEmail({
      siteName: SITE,
      record: { ...brief, attachment: null },
    }),
    confirmation: NewsletterConfirmationEmail({
      siteName: SITE,
      email: HOSTILE,
      topics: ["AI", "Quantum", "Research"],
      confirmUrl: CONFIRM,
      unsubscribeUrl: UNSUBSCRIBE,
      validFor: "7 days",
    }),
    "ops sign-in": OpsSignInEmail({ siteName: SITE, signInUrl: CONFIRM, validFor: "15 minutes" }),
  };

  // React Email's `Preview` pads its line with ~800 invisible characters; quoted-printable made
  // them more than half of every email. The line is kept (first in the body, hidden, out of the
  // text), the padding is not.
  it.each(Object.entries(emails))("%s: a preview line first in the body, unpadded", async (_, email) => {
    const { html, text } = await renderEmail(email);
    const line = /<body[^>]*><div style="display:none;[^"]*" data-skip-in-text="true">([^<]+)<\/div>/.exec(
      html,
    );
    expect(line?.[1]?.length).toBeGreaterThan(10);
    expect(text.startsWith(line![1]!)).toBe(false);
    expect(html).not.toMatch(/[\u00a0\u200b-\u200f\ufeff]/);
    expect(Buffer.byteLength(html)).toBeLessThan(5_000);
  });

  // The HTML is React's static markup, and the text is converted from it by a converter compiled
  // once; they must be exactly what React Email's own renders give (its plain text a second render,
  // converted afresh), less the markers React's streaming render adds and a mail client ignores:
  // the Suspense boundary's `<!--$-->`/`<!--/$-->`, `<!--html-->`-style placeholders, `<!-- -->`
  // between adjacent texts.
  it.each(Object.entries(emails))(
    "%s: the same HTML and text as React Email's two renders",
    async (_, email) => {
      const ours = await renderEmail(email);
      const streamed = await render(email);
      const marker = /<!--(?:\$|\/\$| |html|head|body)-->/;
      expect(streamed).toMatch(marker);
      expect(ours.html).not.toMatch(marker);
      expect(ours.html).toBe(streamed.replace(new RegExp(marker, "g"), ""));
      expect(ours.text).toBe(await render(email, { plainText: true }));
      expect(ours.text.length).toBeGreaterThan(100);
    },
  );
});

describe("VisitorMailer", () => {
  let smtp: SmtpTestServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp.stop();
  });
  beforeEach(() => {
    smtp.behave("accept");
    smtp.received.length = 0;
  });

  const message = { subject: "Hello", html: "<p>Hi</p>", text: "Hi" };

  it("sends from EMAIL_FROM to the visitor, with RFC 8058 headers when the email is to a subscriber", async () => {
    const mailer = new VisitorMailer(
      { smtpUrl: smtp.url, from: { name: "Studio", address: "news@studio.example" } },
      3_000,
    );
    await mailer.send({ ...message, to: "ada@example.com", oneClickUnsubscribeUrl: `${UNSUBSCRIBE}x` });
    await mailer.send({ ...message, to: "bob@example.com", subject: "Line\r\nBcc: eve@example.com" });
    const [subscriber, other] = smtp.received;
    expect(subscriber?.envelope).toEqual({ from: "news@studio.example", to: ["ada@example.com"] });
    const headers = (mail: typeof subscriber) =>
      Object.fromEntries((mail?.parsed.headers ?? []).map((entry) => [entry.key, entry.value]));
    expect(headers(subscriber)).toMatchObject({
      "list-unsubscribe": `<${UNSUBSCRIBE}x>`,
      "list-unsubscribe-post": "List-Unsubscribe=One-Click",
    });
    // Not a subscriber's email: no unsubscribe headers; and a header never takes a line break.
    expect(headers(other)["list-unsubscribe"]).toBeUndefined();
    expect(other?.envelope.to).toEqual(["bob@example.com"]);
    expect(other?.parsed.subject).toBe("Line Bcc: eve@example.com");
    expect(other?.parsed.bcc).toBeUndefined();
  });

  it("an SMTP server refusing the message is EmailUnavailableError", async () => {
    smtp.behave({ refuse: 550 });
    const mailer = new VisitorMailer(
      { smtpUrl: smtp.url, from: { name: "", address: "news@studio.example" } },
      3_000,
    );
    await expect(mailer.send({ ...message, to: "ada@example.com" })).rejects.toBeInstanceOf(
      EmailUnavailableError,
    );
  });

  it("a server that never answers is EmailUnavailableError within the bound", async () => {
    smtp.behave("hang");
    const mailer = new VisitorMailer(
      { smtpUrl: smtp.url, from: { name: "", address: "news@studio.example" } },
      500,
    );
    const started = Date.now();
    await expect(mailer.send({ ...message, to: "ada@example.com" })).rejects.toBeInstanceOf(
      EmailUnavailableError,
    );
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe("VisitorMailer's connections", () => {
  let smtp: SmtpTestServer;
  beforeEach(async () => {
    smtp = await startSmtpServer();
  });
  afterEach(async () => {
    await smtp.stop();
  });

  const message = { subject: "Hello", html: "<p>Hi</p>", text: "Hi" };
  const mailerFor = (timeoutMs: number) =>
    new VisitorMailer({ smtpUrl: smtp.url, from: { name: "", address: "news@studio.example" } }, timeoutMs);

  it("messages one after the other go over one connection, not one each", async () => {
    const mailer = mailerFor(3_000);
    for (const to of ["a@example.com", "b@example.com", "c@example.com"])
      await mailer.send({ ...message, to });
    expect(smtp.received.map((mail) => mail.envelope.to)).toEqual([
      ["a@example.com"],
      ["b@example.com"],
      ["c@example.com"],
    ]);
    expect(smtp.connectionsOpened()).toBe(1);
    expect(smtp.commands.filter((command) => command.name === "EHLO")).toHaveLength(1);
  });

  it("the senders of one SMTP_URL share their connections: two mailers' messages in turn go over one", async () => {
    // As the app has them: the acknowledgment's mailer and the confirmations' (sign-in links have a third).
    const acknowledgments = mailerFor(3_000);
    const confirmations = mailerFor(3_000);
    await acknowledgments.send({ ...message, to: "a@example.com" });
    await confirmations.send({ ...message, to: "b@example.com" });
    await acknowledgments.send({ ...message, to: "c@example.com" });
    expect(smtp.received.map((mail) => mail.envelope.to[0])).toEqual([
      "a@example.com",
      "b@example.com",
      "c@example.com",
    ]);
    expect(smtp.connectionsOpened()).toBe(1);
  });

  it("a connection the server dropped is replaced: the next message is sent, over a new one", async () => {
    const mailer = mailerFor(3_000);
    await mailer.send({ ...message, to: "a@example.com" });
    // At once, before the client can have noticed, and again after it has.
    smtp.dropConnections();
    await mailer.send({ ...message, to: "b@example.com" });
    smtp.dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await mailer.send({ ...message, to: "c@example.com" });
    expect(smtp.received.map((mail) => mail.envelope.to[0])).toEqual([
      "a@example.com",
      "b@example.com",
      "c@example.com",
    ]);
    expect(smtp.connectionsOpened()).toBeGreaterThanOrEqual(3);
  });

  it("a message the bound gave up on is never sent afterwards, even once the server recovers", async () => {
    smtp.behave("hang");
    const mailer = mailerFor(300);
    // More than the connections kept open: some wait in the queue, some hang on a connection.
    const sends = Array.from({ length: 12 }, (_, index) =>
      mailer.send({ ...message, to: `late-${index}@example.com` }),
    );
    for (const send of sends) await expect(send).rejects.toBeInstanceOf(EmailUnavailableError);
    smtp.behave("accept");
    await mailer.send({ ...message, to: "next@example.com" });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(smtp.received.map((mail) => mail.envelope.to[0])).toEqual(["next@example.com"]);
  });
});
