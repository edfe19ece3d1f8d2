import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { nextAddress } from "../support/contact";
import { postNewsletter, subscriberFile } from "../support/newsletter";
import {
  eventually,
  header,
  LINK_SECRET,
  linksIn,
  mailsTo,
  oneClickUnsubscribe,
  postConfirm,
  signLegacyLink,
  signLink,
  subscriberIdOf,
  tokenOf,
  waitForMails,
} from "../support/opt-in";
import { type AppServer, startApp, startAppExpectingFailure, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/**
 * Newsletter double opt-in against `next start`, on the filesystem inbox and on the Vercel Blob
 * inbox (the stand-in): a real SMTP server receives the confirmation emails, the links are taken
 * from them as a visitor (and a mail provider) would, and a real webhook receiver checks the
 * signed subscriber events.
 */

const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const NOTIFY_TIMEOUT_MS = 3_000;
const FROM = "Northwind Studio <news@studio.example>";

interface InboxUnderTest {
  env: Record<string, string>;
  /** The stored record of `email`, or `null`. */
  read(email: string): Promise<Record<string, unknown> | null>;
  close(): Promise<void>;
}

async function filesystemInbox(): Promise<InboxUnderTest> {
  const dir = await tempDir();
  return {
    env: { INBOX_DIR: dir },
    read: async (email) => {
      try {
        return JSON.parse(await readFile(subscriberFile(dir, email), "utf8")) as Record<string, unknown>;
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT") return null;
        throw error;
      }
    },
    close: async () => {},
  };
}

async function blobInbox(): Promise<InboxUnderTest> {
  const standIn: BlobStandIn = await startBlobStandIn();
  return {
    env: blobEnv(standIn.token, standIn.origin),
    read: async (email) => {
      const blob = standIn.objects.get(`newsletter/subscribers/${subscriberIdOf(email)}.json`);
      return blob ? (JSON.parse(blob.body.toString("utf8")) as Record<string, unknown>) : null;
    },
    close: () => standIn.close(),
  };
}

let counter = 0;
/** A fresh address for each test (with an apostrophe: HTML must escape it). */
function freshEmail(local = "o'reader"): string {
  counter += 1;
  return `${local}+${counter}@opt-in-${Date.now().toString(36)}.example`;
}

interface ErrorBody {
  ok: false;
  error: string;
  message: string;
  fields?: Record<string, string>;
}

describe.each<[string, () => Promise<InboxUnderTest>]>([
  ["filesystem", filesystemInbox],
  ["vercel-blob", blobInbox],
])("double opt-in on the %s inbox", (_driver, makeInbox) => {
  let inbox: InboxUnderTest;
  let smtp: SmtpTestServer;
  let receiver: WebhookReceiver;
  let app: AppServer;

  beforeAll(async () => {
    inbox = await makeInbox();
    smtp = await startSmtpServer();
    receiver = await startWebhookReceiver();
    app = await startApp({
      ...inbox.env,
      NEWSLETTER_DOUBLE_OPT_IN: "true",
      SMTP_URL: smtp.url,
      EMAIL_FROM: FROM,
      LINK_SIGNING_SECRET: LINK_SECRET,
      WEBHOOK_URL: `${receiver.url}/hooks/newsletter`,
      WEBHOOK_SECRET,
      NOTIFY_TIMEOUT_MS: String(NOTIFY_TIMEOUT_MS),
    });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
    await receiver?.stop();
    await inbox?.close();
  });

  beforeEach(() => {
    smtp.behave("accept");
    receiver.answer({ status: 204 });
  });

  /** The webhook events received for `email`, verified with the shared secret. */
  function eventsFor(email: string): { type: string; email: string; topics: string[]; at: string }[] {
    const webhook = new Webhook(WEBHOOK_SECRET);
    return receiver.received
      .map((request) => {
        const event = webhook.verify(request.body, request.headers as Record<string, string>) as {
          type: string;
          email: string;
          topics: string[];
          at: string;
        };
        return event;
      })
      .filter((event) => event.email === email);
  }

  /** Subscribes `email` and answers the links of the one confirmation email it gets. */
  async function subscribeAndOpenMail(email: string, topics: string[] = []) {
    const response = await postNewsletter(app.url, { email, topics });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, status: "confirmation-sent" });
    const [mail] = await waitForMails(smtp, email);
    if (!mail) throw new Error("no mail");
    return { mail, links: linksIn(mail) };
  }

  it("a new address: confirmation-sent, stored pending, and one email with the links and one-click headers", async () => {
    const email = freshEmail();
    const { mail, links } = await subscribeAndOpenMail(email, ["AI", "Quantum"]);

    expect(await inbox.read(email)).toMatchObject({
      email,
      topics: ["AI", "Quantum"],
      status: "pending",
      confirmedAt: null,
      unsubscribedAt: null,
    });
    expect(mail.envelope.to).toEqual([email]);
    expect(mail.parsed.from).toMatchObject({ name: "Northwind Studio", address: "news@studio.example" });
    expect(mail.parsed.subject).toBe("Confirm your subscription to the Northwind Studio newsletter");

    // Absolute links on SITE_URL; the token names the subscriber by its id, never the address.
    for (const link of [links.confirm, links.unsubscribePage, links.oneClick]) {
      expect(link.startsWith(`${app.url}/`)).toBe(true);
      const [payload] = tokenOf(link).split(".");
      const decoded = Buffer.from(payload ?? "", "base64url").toString("utf8");
      expect(decoded).not.toContain(email);
      expect(JSON.parse(decoded)).toMatchObject({ sub: subscriberIdOf(email) });
    }
    expect(links.oneClick.startsWith(`${app.url}/api/newsletter/unsubscribe?token=`)).toBe(true);
    expect(header(mail, "list-unsubscribe")).toBe(`<${links.oneClick}>`);
    expect(header(mail, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    const confirm = JSON.parse(
      Buffer.from(tokenOf(links.confirm).split(".")[0] ?? "", "base64url").toString(),
    );
    const validFor = (confirm as { exp: number }).exp * 1000 - Date.now();
    expect(validFor).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(validFor).toBeLessThanOrEqual(7 * 86_400_000);

    // Both bodies carry both links; the HTML escapes the address and loads nothing remote.
    const html = mail.parsed.html ?? "";
    expect(mail.parsed.text).toContain(email);
    expect(html).toContain(links.confirm.replaceAll("&", "&amp;"));
    expect(html).toContain(links.unsubscribePage);
    expect(html).not.toContain(email);
    expect(html).toContain(email.replace("'", "&#x27;"));
    expect(html).not.toMatch(/<img|src=|url\(/i);
    expect(app.output()).not.toContain(email);
  });

  it("opening the link (a GET, as a mail scanner does) shows the address and a button, and confirms nothing", async () => {
    const email = freshEmail();
    const { links } = await subscribeAndOpenMail(email, ["Research"]);
    const page = await fetch(links.confirm);
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain(email.replace("'", "&#x27;"));
    expect(body).toContain("Topics: Research.");
    expect(body).toMatch(/<button[^>]*type="submit"[^>]*>Confirm subscription<\/button>/);
    expect(body).toContain('<meta name="referrer" content="no-referrer"/>');
    expect((await inbox.read(email))?.status).toBe("pending");
  });

  it("the button's POST confirms: confirmed, then already-subscribed; one signed newsletter.confirmed event", async () => {
    const email = freshEmail();
    const { links } = await subscribeAndOpenMail(email, ["AI"]);
    const token = tokenOf(links.confirm);

    const first = await postConfirm(app.url, { token });
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.headers.get("ratelimit-limit")).toBe("10");
    expect(await first.json()).toEqual({ ok: true, status: "confirmed" });
    const record = await inbox.read(email);
    expect(record).toMatchObject({ status: "confirmed", confirmedAt: expect.any(String) });
    // The consent's evidence: written at the request, its confirmation added by the button.
    expect(record?.consent).toEqual({
      at: record?.subscribedAt,
      method: "double",
      site: "unknown",
      ipHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      verification: "off",
      confirmedAt: record?.confirmedAt,
    });

    const again = await postConfirm(app.url, { token });
    expect(await again.json()).toEqual({ ok: true, status: "already-subscribed" });
    expect(await inbox.read(email)).toEqual(record);

    await eventually(() => expect(eventsFor(email)).toHaveLength(1));
    expect(eventsFor(email)[0]).toEqual({
      type: "newsletter.confirmed",
      email,
      topics: ["AI"],
      at: record?.confirmedAt,
    });
    expect(app.output()).not.toContain(email);
  });

  it("without JavaScript the page's form confirms and comes back to the page (303)", async () => {
    const email = freshEmail();
    const { links } = await subscribeAndOpenMail(email);
    const response = await fetch(`${app.url}/api/newsletter/confirm`, {
      method: "POST",
      body: new URLSearchParams({ token: tokenOf(links.confirm) }).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html,application/xhtml+xml",
        "x-forwarded-for": nextAddress(),
      },
      redirect: "manual",
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/newsletter/confirm?status=confirmed");
    expect((await inbox.read(email))?.status).toBe("confirmed");
    const page = await (await fetch(`${app.url}/newsletter/confirm?status=confirmed`)).text();
    expect(page).toContain("you are subscribed");
  });

  it("tampered, expired, other-purpose and foreign tokens are 422 fields.token, and change nothing", async () => {
    const email = freshEmail();
    const { links } = await subscribeAndOpenMail(email);
    const token = tokenOf(links.confirm);
    const [payload = "", mac = ""] = token.split(".");
    const id = subscriberIdOf(email);
    const otherPayload = Buffer.from(
      JSON.stringify({
        site: app.url,
        act: "confirm",
        sub: subscriberIdOf("someone@else.example"),
        exp: 4e9,
      }),
    ).toString("base64url");
    const cases: [string, unknown, RegExp][] = [
      ["tampered payload", `${otherPayload}.${mac}`, /not valid/],
      [
        "tampered signature",
        `${payload}.${mac.slice(0, -2)}${mac.endsWith("AA") ? "BA" : "AA"}`,
        /not valid/,
      ],
      [
        "expired",
        signLink(app.url, { act: "confirm", sub: id, exp: Math.floor(Date.now() / 1000) - 5 }),
        /expired/,
      ],
      ["an unsubscribe token", tokenOf(links.unsubscribePage), /not valid/],
      ["an ops sign-in token", signLink(app.url, { act: "ops-sign-in", sub: id, exp: 4e9 }), /not valid/],
      [
        "another secret",
        signLink(app.url, { act: "confirm", sub: id, exp: 4e9 }, "x".repeat(40)),
        /not valid/,
      ],
      [
        "another site sharing the secret",
        signLink("https://other-studio.example", { act: "confirm", sub: id, exp: 4e9 }),
        /not valid/,
      ],
      [
        "another site sharing the secret, expired",
        signLink("https://other-studio.example", { act: "confirm", sub: id, exp: 1 }),
        /not valid/,
      ],
      [
        "the old form of a confirm link",
        signLegacyLink({ act: "newsletter.confirm", sub: id, exp: 4e9 }),
        /not valid/,
      ],
      ["no token", undefined, /not valid/],
      ["a number", 42, /not valid/],
    ];
    for (const [label, bad, message] of cases) {
      const response = await postConfirm(app.url, { token: bad });
      expect(response.status, label).toBe(422);
      const body = (await response.json()) as ErrorBody;
      expect(body, label).toMatchObject({ ok: false, error: "validation_failed" });
      expect(Object.keys(body.fields ?? {}), label).toEqual(["token"]);
      expect(body.fields?.token, label).toMatch(message);
    }
    // A confirm token is no unsubscribe token either, nor is another site's, nor an old-form confirm.
    const notUnsubscribe: [string, string][] = [
      ["a confirm token", token],
      ["another site's", signLink("https://other-studio.example", { act: "unsubscribe", sub: id })],
      ["an old-form confirm token", signLegacyLink({ act: "newsletter.confirm", sub: id, exp: 4e9 })],
      ["an ops sign-in token", signLink(app.url, { act: "ops-sign-in", sub: id, exp: 4e9 })],
    ];
    for (const [label, bad] of notUnsubscribe) {
      const wrong = await oneClickUnsubscribe(`${app.url}/api/newsletter/unsubscribe?token=${bad}`);
      expect(wrong.status, label).toBe(422);
      expect(Object.keys(((await wrong.json()) as ErrorBody).fields ?? {}), label).toEqual(["token"]);
      const page = await (await fetch(`${app.url}/newsletter/unsubscribe?token=${bad}`)).text();
      expect(page, label).toContain("This link is not valid.");
      expect(page, label).not.toMatch(/<button[^>]*>Unsubscribe<\/button>/);
    }
    expect((await inbox.read(email))?.status).toBe("pending");

    // Without JavaScript: back to the page, which says why.
    const expired = signLink(app.url, { act: "confirm", sub: id, exp: 1 });
    const noJs = await fetch(`${app.url}/api/newsletter/confirm`, {
      method: "POST",
      body: `token=${expired}`,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
        "x-forwarded-for": nextAddress(),
      },
      redirect: "manual",
    });
    expect(noJs.status).toBe(303);
    expect(noJs.headers.get("location")).toBe("/newsletter/confirm?error=validation_failed&link=expired");
    expect(await (await fetch(`${app.url}${noJs.headers.get("location")}`)).text()).toContain(
      "This link has expired",
    );
    // The page opened with an expired link says so, and offers no button.
    const page = await (await fetch(`${app.url}/newsletter/confirm?token=${expired}`)).text();
    expect(page).toContain("This link has expired");
    expect(page).not.toContain("Confirm subscription</button>");
  });

  it("the confirm route refuses other bodies like the other routes: 400, 415, and 413 past 4 KiB", async () => {
    expect((await postConfirm(app.url, "{not json")).status).toBe(400);
    expect((await postConfirm(app.url, "[]")).status).toBe(400);
    expect((await postConfirm(app.url, "token=x", { "content-type": "text/plain" })).status).toBe(415);
    expect((await postConfirm(app.url, { token: "x".repeat(5_000) })).status).toBe(413);
  });

  it("one-click unsubscribe as a mail provider posts it: no Origin, form-encoded; idempotent; no per-client limit", async () => {
    const email = freshEmail();
    const { links } = await subscribeAndOpenMail(email, ["Software"]);
    expect((await postConfirm(app.url, { token: tokenOf(links.confirm) })).status).toBe(200);

    // RFC 8058 forbids a redirect, whatever the Accept header says.
    const response = await oneClickUnsubscribe(links.oneClick, { accept: "text/html" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("ratelimit-limit")).toBeNull();
    expect(await response.json()).toEqual({ ok: true, status: "unsubscribed" });
    const record = await inbox.read(email);
    expect(record).toMatchObject({ status: "unsubscribed", unsubscribedAt: expect.any(String) });

    // Again, 15 times from the same provider address (past any per-client budget), from another
    // site's origin, with an empty body and as multipart: the same answer, nothing else changes.
    const again = [];
    for (let i = 0; i < 15; i++) again.push(await oneClickUnsubscribe(links.oneClick));
    const form = new FormData();
    form.set("List-Unsubscribe", "One-Click");
    again.push(
      await oneClickUnsubscribe(links.oneClick, {
        origin: "https://mail.example",
        "sec-fetch-site": "cross-site",
      }),
      await fetch(links.oneClick, { method: "POST", redirect: "manual" }),
      await fetch(links.oneClick, { method: "POST", body: form, redirect: "manual" }),
    );
    for (const answer of again) {
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ ok: true, status: "unsubscribed" });
    }
    expect(await inbox.read(email)).toEqual(record);

    await eventually(() =>
      expect(eventsFor(email).map((event) => event.type)).toEqual([
        "newsletter.confirmed",
        "newsletter.unsubscribed",
      ]),
    );
    expect(eventsFor(email)[1]).toEqual({
      type: "newsletter.unsubscribed",
      email,
      topics: ["Software"],
      at: record?.unsubscribedAt,
    });
  });

  it("the unsubscribe page asks first; GET of the one-click address leads there; its button unsubscribes", async () => {
    const email = freshEmail();
    const { links } = await subscribeAndOpenMail(email);
    const page = await (await fetch(links.unsubscribePage)).text();
    expect(page).toContain(email.replace("'", "&#x27;"));
    expect(page).toMatch(/<button[^>]*>Unsubscribe<\/button>/);
    expect((await inbox.read(email))?.status).toBe("pending");

    const get = await fetch(links.oneClick, { redirect: "manual" });
    expect(get.status).toBe(303);
    expect(get.headers.get("location")).toBe(`/newsletter/unsubscribe?token=${tokenOf(links.oneClick)}`);
    expect((await inbox.read(email))?.status).toBe("pending");

    // The page's form without JavaScript: an empty body, and back to the page.
    const button = await fetch(links.oneClick, {
      method: "POST",
      headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded" },
      body: "",
      redirect: "manual",
    });
    expect(button.status).toBe(303);
    expect(button.headers.get("location")).toBe("/newsletter/unsubscribe?status=unsubscribed");
    expect((await inbox.read(email))?.status).toBe("unsubscribed");
    // A pending address never joined the confirmed list: no event.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(eventsFor(email)).toEqual([]);
  });

  it("an unsubscribe link of the old form, with no site in it, still works: its page, and one-click", async () => {
    const email = freshEmail();
    const { links } = await subscribeAndOpenMail(email, ["Research"]);
    expect((await postConfirm(app.url, { token: tokenOf(links.confirm) })).status).toBe(200);
    const old = signLegacyLink({ act: "newsletter.unsubscribe", sub: subscriberIdOf(email) });

    const page = await (await fetch(`${app.url}/newsletter/unsubscribe?token=${old}`)).text();
    expect(page).toContain(email.replace("'", "&#x27;"));
    expect(page).toMatch(/<button[^>]*>Unsubscribe<\/button>/);
    expect((await inbox.read(email))?.status).toBe("confirmed");

    const response = await oneClickUnsubscribe(`${app.url}/api/newsletter/unsubscribe?token=${old}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, status: "unsubscribed" });
    expect(await inbox.read(email)).toMatchObject({
      status: "unsubscribed",
      unsubscribedAt: expect.any(String),
    });
    // Under another secret it is as forged as any other token.
    const forged = signLegacyLink(
      { act: "newsletter.unsubscribe", sub: subscriberIdOf(email) },
      "y".repeat(40),
    );
    expect((await oneClickUnsubscribe(`${app.url}/api/newsletter/unsubscribe?token=${forged}`)).status).toBe(
      422,
    );
  });

  it("a confirmed address subscribing again: already-subscribed, topics merged, no email", async () => {
    const email = freshEmail();
    const { links } = await subscribeAndOpenMail(email, ["AI"]);
    await postConfirm(app.url, { token: tokenOf(links.confirm) });
    const response = await postNewsletter(app.url, { email: email.toUpperCase(), topics: ["Quantum"] });
    expect(await response.json()).toEqual({ ok: true, status: "already-subscribed" });
    expect(await inbox.read(email)).toMatchObject({ status: "confirmed", topics: ["AI", "Quantum"] });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(smtp, email)).toHaveLength(1);
  });

  it("at most one confirmation per address per 10 minutes: a request inside the window sends none", async () => {
    const email = freshEmail();
    await subscribeAndOpenMail(email, ["AI"]);
    for (const topics of [["AI"], ["Research"]]) {
      const response = await postNewsletter(app.url, { email, topics });
      expect(await response.json()).toEqual({ ok: true, status: "confirmation-sent" });
    }
    expect(await inbox.read(email)).toMatchObject({ status: "pending", topics: ["AI", "Research"] });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(mailsTo(smtp, email)).toHaveLength(1);
    // An unsubscribed address asking again is pending again, still inside its window.
    const { links } = { links: linksIn(mailsTo(smtp, email)[0]!) };
    await oneClickUnsubscribe(links.oneClick);
    expect(await (await postNewsletter(app.url, { email })).json()).toEqual({
      ok: true,
      status: "confirmation-sent",
    });
    expect((await inbox.read(email))?.status).toBe("pending");
    expect(mailsTo(smtp, email)).toHaveLength(1);
  });

  it("SMTP refusing: 503 email_unavailable, the pending record stays, and a retry sends the email", async () => {
    const email = freshEmail();
    smtp.behave({ refuse: 451 });
    const refused = await postNewsletter(app.url, { email, topics: ["AI"] });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({
      ok: false,
      error: "email_unavailable",
      message: "We could not send you an email just now. Please try again in a moment.",
    });
    expect(await inbox.read(email)).toMatchObject({ status: "pending", topics: ["AI"] });

    smtp.behave("accept");
    const retried = await postNewsletter(app.url, { email, topics: ["AI"] });
    expect(await retried.json()).toEqual({ ok: true, status: "confirmation-sent" });
    const [mail] = await waitForMails(smtp, email);
    expect((await postConfirm(app.url, { token: tokenOf(linksIn(mail!).confirm) })).status).toBe(200);
    expect(app.output()).not.toContain(email);
    expect(app.output()).toContain("[newsletter] confirmation email for subscriber");
  });

  it("SMTP hanging: 503 within NOTIFY_TIMEOUT_MS and a moment, and the browser without JavaScript is told", async () => {
    const email = freshEmail();
    smtp.behave("hang");
    const started = Date.now();
    const response = await fetch(`${app.url}/api/newsletter`, {
      method: "POST",
      body: new URLSearchParams({ email }).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
        "x-forwarded-for": nextAddress(),
      },
      redirect: "manual",
    });
    expect(Date.now() - started).toBeLessThan(NOTIFY_TIMEOUT_MS + 1_000);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/newsletter?error=email_unavailable");
    expect((await inbox.read(email))?.status).toBe("pending");
  });

  it("20 concurrent confirms of one link: one confirmed, 19 already-subscribed, one event, one whole record", async () => {
    const email = freshEmail();
    const { links } = await subscribeAndOpenMail(email, ["AI"]);
    const token = tokenOf(links.confirm);
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => (await postConfirm(app.url, { token })).json()),
    );
    const statuses = answers.map((answer) => (answer as { status: string }).status);
    expect(statuses.filter((status) => status === "confirmed")).toHaveLength(1);
    expect(statuses.filter((status) => status === "already-subscribed")).toHaveLength(19);
    expect(await inbox.read(email)).toMatchObject({ status: "confirmed", topics: ["AI"] });
    await eventually(() => expect(eventsFor(email)).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(eventsFor(email)).toHaveLength(1);
  });

  it("a confirm racing a one-click unsubscribe: the unsubscribe always stands", async () => {
    for (let round = 0; round < 4; round++) {
      const email = freshEmail(`racer${round}`);
      const { links } = await subscribeAndOpenMail(email);
      const [confirm, unsubscribe] = await Promise.all([
        postConfirm(app.url, { token: tokenOf(links.confirm) }),
        oneClickUnsubscribe(links.oneClick),
      ]);
      expect(unsubscribe.status).toBe(200);
      // Either the confirm came first (200), or it found the address unsubscribed already (422).
      expect([200, 422]).toContain(confirm.status);
      expect(await inbox.read(email)).toMatchObject({ status: "unsubscribed" });
    }
  });

  it("concurrent topic merges for one confirmed address lose nothing", async () => {
    const email = freshEmail();
    const { links } = await subscribeAndOpenMail(email);
    await postConfirm(app.url, { token: tokenOf(links.confirm) });
    const topics = ["AI", "Engineering", "Research", "Software", "Infrastructure", "Quantum"];
    const answers = await Promise.all(
      topics.map((topic) => postNewsletter(app.url, { email, topics: [topic] })),
    );
    for (const answer of answers)
      expect(await answer.json()).toEqual({ ok: true, status: "already-subscribed" });
    expect([...((await inbox.read(email))?.topics as string[])].sort()).toEqual([...topics].sort());
  });

  it("the confirm route has a per-client limit: the 11th post from one address is 429", async () => {
    const address = nextAddress();
    const statuses = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await postConfirm(app.url, { token: "x" }, { "x-forwarded-for": address })).status);
    }
    expect(statuses).toEqual([...Array(10).fill(422), 429]);
  });
});

describe("single opt-in (NEWSLETTER_DOUBLE_OPT_IN unset)", () => {
  let receiver: WebhookReceiver;
  let app: AppServer;
  let dir: string;

  beforeAll(async () => {
    dir = await tempDir();
    receiver = await startWebhookReceiver();
    app = await startApp({ INBOX_DIR: dir, WEBHOOK_URL: `${receiver.url}/hooks`, WEBHOOK_SECRET });
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.stop();
  });

  it("subscribes at once with status confirmed, and sends newsletter.confirmed on the first subscribe only", async () => {
    const email = freshEmail("single");
    expect(await (await postNewsletter(app.url, { email, topics: ["AI"] })).json()).toEqual({
      ok: true,
      status: "subscribed",
    });
    const record = JSON.parse(await readFile(subscriberFile(dir, email), "utf8")) as Record<string, unknown>;
    expect(record).toMatchObject({
      status: "confirmed",
      confirmedAt: record.subscribedAt,
      unsubscribedAt: null,
    });
    expect(await (await postNewsletter(app.url, { email, topics: ["Quantum"] })).json()).toEqual({
      ok: true,
      status: "already-subscribed",
    });

    const webhook = new Webhook(WEBHOOK_SECRET);
    const events = () =>
      receiver.received.map((request) => ({
        id: request.headers["webhook-id"],
        event: webhook.verify(request.body, request.headers as Record<string, string>),
      }));
    await eventually(() => expect(events()).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(events()).toEqual([
      {
        id: `msg_${record.revision as string}`,
        event: { type: "newsletter.confirmed", email, topics: ["AI"], at: record.subscribedAt },
      },
    ]);
    expect(app.output()).not.toContain(email);
  });

  it("without LINK_SIGNING_SECRET no link can be valid: confirm and unsubscribe are 422", async () => {
    const token = signLink(app.url, { act: "confirm", sub: subscriberIdOf("a@b.example"), exp: 4e9 });
    expect((await postConfirm(app.url, { token })).status).toBe(422);
    expect((await oneClickUnsubscribe(`${app.url}/api/newsletter/unsubscribe?token=${token}`)).status).toBe(
      422,
    );
  });
});

describe("the start refuses double opt-in without what it needs", () => {
  it.each<[string, Record<string, string>, string[]]>([
    ["nothing", {}, ["SMTP_URL and EMAIL_FROM not set", "LINK_SIGNING_SECRET"]],
    [
      "no secret",
      { SMTP_URL: "smtp://127.0.0.1:2525", EMAIL_FROM: "news@studio.example" },
      ["LINK_SIGNING_SECRET"],
    ],
    [
      "a short secret",
      { SMTP_URL: "smtp://127.0.0.1:2525", EMAIL_FROM: "x@y.example", LINK_SIGNING_SECRET: "short" },
      ["at least 32 characters"],
    ],
  ])("%s", async (_label, env, expected) => {
    const { code, output } = await startAppExpectingFailure({ NEWSLETTER_DOUBLE_OPT_IN: "true", ...env });
    expect(code).toBe(1);
    for (const text of expected) expect(output).toContain(text);
  });
});
