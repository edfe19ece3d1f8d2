import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { briefForm, postContact, validBrief } from "../support/contact";
import { findBriefFolder, readBriefJson, readDeliveryJson } from "../support/inbox";
import { type AppServer, startApp, startAppExpectingFailure, tempDir } from "../support/server";
import { opsFetch, signIn } from "../support/ops-web";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/**
 * Part 4's lead settings over `next start`: the Slack channel (a real HTTP receiver standing in for
 * Slack), the ops email routed by project type (a real SMTP server), the spam rules, and where a
 * lead came from, end to end from the contact route to what each receiver got.
 */

interface ContactAnswer {
  ok: boolean;
  reference: string;
  forwarded: string[];
}

interface SlackBody {
  text: string;
  blocks: { type: string; text?: { text: string }; elements?: { text: string }[] }[];
}

const SITE = "https://studio.example";

describe("Slack, routing, spam rules and attribution", () => {
  let webhook: WebhookReceiver;
  let slack: WebhookReceiver;
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    [webhook, slack, smtp, inbox] = await Promise.all([
      startWebhookReceiver(),
      startWebhookReceiver(),
      startSmtpServer(),
      tempDir(),
    ]);
    app = await startApp({
      SITE_URL: SITE,
      INBOX_DIR: inbox,
      WEBHOOK_URL: webhook.url,
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Studio Intake <intake@studio.example>",
      EMAIL_TO: "ops@studio.example",
      EMAIL_ROUTES: "ai-system=ml@studio.example,lead@studio.example;mobile-application=apps@studio.example",
      SLACK_WEBHOOK_URL: `${slack.url}/services/T000/B000/XXXX`,
      SPAM_KEYWORDS: "casino,seo services",
      SPAM_EMAIL_DOMAINS: "münchen.example",
      // The inbox on the web: Slack messages link each brief's page.
      OPS_EMAILS: "ops@studio.example",
      LINK_SIGNING_SECRET: "a-link-signing-secret-of-at-least-32-characters",
      NOTIFY_TIMEOUT_MS: "2000",
      CONTACT_RATE_LIMIT: "100/1m",
    });
  });

  afterEach(() => {
    slack.answer({ status: 204 });
  });

  afterAll(async () => {
    await app?.stop();
    await Promise.all([webhook?.stop(), slack?.stop(), smtp?.stop()]);
  });

  async function send(fields: Record<string, string>): Promise<ContactAnswer> {
    const response = await postContact(app.url, briefForm(validBrief(fields)));
    expect(response.status).toBe(200);
    return (await response.json()) as ContactAnswer;
  }

  const slackFor = (reference: string) =>
    slack.received
      .filter((request) => request.body.includes(reference))
      .map((request) => JSON.parse(request.body) as SlackBody);

  it("lists slack among the channels, after webhook and email", async () => {
    const health = (await (await fetch(`${app.url}/api/health`)).json()) as { channels: string[] };
    expect(health.channels).toEqual(["webhook", "email", "slack"]);
  });

  it("tells all three channels, the email to the project type's route, with where the lead came from", async () => {
    const answer = await send({
      page: "/pricing?plan=pro",
      referrer: "https://news.example/post",
      utm_source: "newsletter",
      utm_campaign: "spring",
    });
    expect(answer.forwarded).toEqual(["webhook", "email", "slack"]);
    const attribution = {
      page: "/pricing?plan=pro",
      referrer: "https://news.example/post",
      utm: { source: "newsletter", campaign: "spring" },
    };
    expect((await readBriefJson(inbox, answer.reference)).attribution).toEqual(attribution);
    expect(await readDeliveryJson(inbox, answer.reference)).toMatchObject({
      webhook: { ok: true },
      email: { ok: true },
      slack: { ok: true },
    });

    const [event] = webhook.forReference(answer.reference);
    const payload = JSON.parse(event?.body ?? "{}") as Record<string, unknown>;
    expect(payload.attribution).toEqual(attribution);
    expect(Object.keys(payload).slice(3, 5)).toEqual(["verification", "attribution"]);

    const [mail] = smtp.forReference(answer.reference);
    expect(mail?.envelope.to).toEqual(["ml@studio.example", "lead@studio.example"]);
    expect(mail?.parsed.text).toContain("Where it came from");
    expect(mail?.parsed.text).toContain("utm_campaign:  spring");

    const [message] = slackFor(answer.reference);
    expect(slack.received.find((request) => request.body.includes(answer.reference))?.path).toBe(
      "/services/T000/B000/XXXX",
    );
    expect(message?.text).toContain(`New brief ${answer.reference} from Ada Lovelace`);
    expect(message?.text).toContain("AI system");
    expect(message?.text).toContain("utm_source: newsletter");
    expect(message?.text).toContain(
      `<${SITE}/inbox/${answer.reference}|Open ${answer.reference} in the inbox>`,
    );
  });

  it("emails a type without a route to EMAIL_TO; the webhook payload does not change with the route", async () => {
    const answer = await send({ projectType: "data-platform" });
    expect(answer.forwarded).toEqual(["webhook", "email", "slack"]);
    const [mail] = smtp.forReference(answer.reference);
    expect(mail?.envelope.to).toEqual(["ops@studio.example"]);
    const payload = JSON.parse(webhook.forReference(answer.reference)[0]?.body ?? "{}") as {
      attribution: unknown;
      brief: { projectType: string };
    };
    expect(payload.brief.projectType).toBe("data-platform");
    expect(payload.attribution).toBeNull();
  });

  it("escapes what the visitor typed in the Slack message", async () => {
    const answer = await send({
      name: "<!channel> Eve",
      company: "<https://evil.example|Open in the inbox>",
      description: "Ping @everyone & <@U0123>: this is a brief of at least thirty characters.",
    });
    const [message] = slackFor(answer.reference);
    expect(message?.text).toContain("&lt;!channel&gt; Eve");
    expect(message?.text).toContain("&lt;https://evil.example|Open in the inbox&gt;");
    expect(message?.text).toContain("Ping @\u2060everyone &amp; &lt;@U0123&gt;");
    expect(message?.text).not.toContain("<!channel>");
    expect(message?.text).not.toContain("<https://evil.example");
  });

  it("drops attribution values that break their rule and keeps the brief", async () => {
    const form = briefForm(validBrief({ page: "/", utm_source: "x".repeat(201), utm_medium: "email" }));
    form.append("referrer", "https://a.example\r\nX-Evil: 1");
    const response = await postContact(app.url, form);
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as ContactAnswer;
    expect((await readBriefJson(inbox, reference)).attribution).toEqual({
      page: "/",
      utm: { medium: "email" },
    });
  });

  it("keeps the outcome of a failing Slack apart: left out of forwarded, recorded in delivery.json", async () => {
    slack.answer({ status: 500 });
    const answer = await send({});
    expect(answer.forwarded).toEqual(["webhook", "email"]);
    const delivery = await readDeliveryJson(inbox, answer.reference);
    expect(delivery?.slack).toMatchObject({ ok: false, error: expect.stringContaining("HTTP 500") });
  });

  it.each([
    [
      "a keyword",
      { description: "The best CASINO bonuses, thirty characters or more." },
      { reason: "keyword", match: "casino" },
    ],
    ["a phrase", { company: "Cheap SEO  services" }, { reason: "keyword", match: "seo services" }],
    [
      "a keyword with a soft hyphen",
      { description: "The best cas\u00adino bonuses, thirty characters or more." },
      { reason: "keyword", match: "casino" },
    ],
    [
      "a keyword with a zero-width space",
      { description: "The best ca\u200bsino bonuses, thirty characters or more." },
      { reason: "keyword", match: "casino" },
    ],
    [
      "a keyword in fullwidth letters",
      { description: "The best ｃａｓｉｎｏ bonuses, thirty characters or more." },
      { reason: "keyword", match: "casino" },
    ],
    [
      "a subdomain of a listed IDN domain",
      { email: "bot@mail.xn--mnchen-3ya.example" },
      { reason: "domain", match: "münchen.example" },
    ],
    ["the honeypot", { website: "https://bots.example" }, { reason: "honeypot" }],
  ])(
    "stores a brief caught by %s under spam/, notifies nobody, and says why",
    async (_label, fields, verdict) => {
      const before = {
        webhook: webhook.received.length,
        slack: slack.received.length,
        smtp: smtp.received.length,
      };
      const answer = await send(fields);
      expect(answer).toEqual({ ok: true, reference: answer.reference, stored: true, forwarded: [] });
      const folder = await findBriefFolder(inbox, answer.reference);
      expect(folder?.startsWith("spam/")).toBe(true);
      expect((await readBriefJson(inbox, answer.reference)).spam).toEqual(verdict);
      expect(await readDeliveryJson(inbox, answer.reference, { waitMs: 0 })).toBeNull();
      // Nothing was sent anywhere: no webhook, no Slack message, no email.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(webhook.received.length).toBe(before.webhook);
      expect(slack.received.length).toBe(before.slack);
      expect(smtp.received.length).toBe(before.smtp);
    },
  );

  it("lets a brief that merely contains a keyword, or comes from a domain that merely ends the same, through", async () => {
    const answer = await send({
      // notmünchen.example (the form takes internationalised domains in their ASCII form only).
      email: "ada@xn--notmnchen-t9a.example",
      description: "Our casinos-free booking platform needs a rewrite, thirty chars.",
    });
    expect(answer.forwarded).toEqual(["webhook", "email", "slack"]);
    expect((await findBriefFolder(inbox, answer.reference))?.startsWith("briefs/")).toBe(true);
  });

  it("shows ops where a brief came from on its page, and what caught each spam entry", async () => {
    const brief = await send({ page: "/services", utm_source: "linkedin", utm_term: "ai <studio>" });
    const caught = await send({ name: "Casino Royale" });
    const cookie = await signIn(app, smtp, "ops@studio.example");

    const page = await opsFetch(app, `/inbox/${brief.reference}`, cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Where it came from");
    expect(html).toContain("/services");
    expect(html).toContain("linkedin");
    expect(html).toContain("ai &lt;studio&gt;");

    const spam = await (await opsFetch(app, "/inbox/spam", cookie)).text();
    expect(spam).toContain(caught.reference);
    expect(spam).toContain('data-caught-by="keyword"');
    expect(spam).toContain("the keyword &quot;casino&quot;");
    const entry = await (await opsFetch(app, `/inbox/${caught.reference}`, cookie)).text();
    expect(entry).toMatch(/Caught by <strong[^>]*>the keyword &quot;casino&quot;<\/strong>/);
  });
});

describe("start-up", () => {
  it.each([
    [{ EMAIL_ROUTES: "robotics=r@studio.example" }, /EMAIL_ROUTES.*"robotics" is not a project type/],
    [{ EMAIL_ROUTES: "ai-system=not-an-address" }, /EMAIL_ROUTES.*not an address/],
    [{ SPAM_EMAIL_DOMAINS: "https://spam.example" }, /SPAM_EMAIL_DOMAINS/],
    [{ SLACK_WEBHOOK_URL: "hooks.slack.com/services/x" }, /SLACK_WEBHOOK_URL/],
  ])("stops with %j, naming the variable", async (env, message) => {
    const { code, output } = await startAppExpectingFailure({ INBOX_DIR: await tempDir(), ...env });
    expect(code).not.toBe(0);
    expect(output).toMatch(message);
  });
});
