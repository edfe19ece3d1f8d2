import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BriefRecord } from "@/lib/briefs";
import { parseConfig } from "@/lib/config";
import { createChannels, fanOut, forwardedChannels } from "@/lib/notify";
import {
  escapeSlack,
  escapeWithin,
  SLACK_LIMITS,
  SlackChannel,
  slackMessage,
  type SlackMessage,
} from "@/lib/notify/slack";
import type { BriefNotice } from "@/lib/notify/types";
import { type WebhookReceiver, startWebhookReceiver } from "../support/webhook-receiver";

function record(overrides: Partial<BriefRecord> = {}): BriefRecord {
  return {
    reference: "K7QM-3XD9-PTWA-84HC",
    receivedAt: "2026-11-22T10:00:00.000Z",
    name: "Ada Lovelace",
    email: "ada@example.com",
    company: "Analytical Engines Ltd",
    role: null,
    projectType: "ai-system",
    budget: "50k-100k",
    timeline: "3-6-months",
    description: "We need a system that computes Bernoulli numbers.",
    consent: true,
    attachment: {
      filename: "attachment.pdf",
      originalName: "Our brief.pdf",
      contentType: "application/pdf",
      size: 48_200,
      sha256: "a".repeat(64),
    },
    verification: "passed",
    client: { ipHash: null, userAgent: null, origin: null },
    attribution: null,
    ...overrides,
  };
}

function notice(overrides: Partial<BriefRecord> = {}): BriefNotice {
  return { record: record(overrides), attachment: null, folder: "briefs/2026/11/22/K7QM-3XD9-PTWA-84HC" };
}

/** Every piece of text in the message, `text` and each block's, for looking at what a visitor could inject. */
function allText(message: SlackMessage): string[] {
  return [
    message.text,
    ...message.blocks.flatMap((block) =>
      "text" in block
        ? [block.text.text]
        : "fields" in block
          ? block.fields.map((f) => f.text)
          : block.elements.map((e) => e.text),
    ),
  ];
}

describe("escapeSlack", () => {
  it.each([
    ["<!channel> hello", "&lt;!channel&gt; hello"],
    ["<@U123ABC>", "&lt;@U123ABC&gt;"],
    ["<https://evil.example|your invoice>", "&lt;https://evil.example|your invoice&gt;"],
    ["Tom & Jerry", "Tom &amp; Jerry"],
    ["&lt; already", "&amp;lt; already"],
    ["@channel and @here and @everyone", "@\u2060channel and @\u2060here and @\u2060everyone"],
    ["mail@heresy.example and @channels", "mail@heresy.example and @channels"],
    ["plain text", "plain text"],
  ])("%j -> %j", (input, expected) => {
    expect(escapeSlack(input)).toBe(expected);
  });
});

describe("slackMessage", () => {
  it("names the sender, company, project type, budget and timeline (labels), the description, the attachment and the link", () => {
    const message = slackMessage(record(), "https://studio.example/inbox/K7QM-3XD9-PTWA-84HC");
    const text = allText(message).join("\n");
    for (const part of [
      "K7QM-3XD9-PTWA-84HC",
      "Ada Lovelace",
      "ada@example.com",
      "Analytical Engines Ltd",
      "AI system",
      "$50k-$100k",
      "3-6 months",
      "We need a system that computes Bernoulli numbers.",
      "Our brief.pdf (47.1 KB)",
      "<https://studio.example/inbox/K7QM-3XD9-PTWA-84HC|Open K7QM-3XD9-PTWA-84HC in the inbox>",
    ]) {
      expect(text).toContain(part);
    }
    // `text` is the whole message too: Slack's notification, and all that Discord shows.
    expect(message.text).toContain("We need a system that computes Bernoulli numbers.");
    expect(message.text).toContain("Open K7QM-3XD9-PTWA-84HC in the inbox");
    expect(message.blocks.map((block) => block.type)).toEqual([
      "section",
      "section",
      "section",
      "context",
      "section",
    ]);
  });

  it("has no link while the inbox on the web is off, and says when there is no file", () => {
    const message = slackMessage(record({ attachment: null }), null);
    expect(allText(message).join("\n")).not.toContain("/inbox/");
    expect(message.text).toContain("No attachment");
  });

  it("carries only the first 500 characters of the description (code points)", () => {
    const description = `${"🙂".repeat(499)}ab${"z".repeat(100)}`;
    const message = slackMessage(record({ description }), null);
    expect(message.text).toContain(`${"🙂".repeat(499)}a…`);
    expect(message.text).not.toContain("ab");
  });

  it("escapes every piece of visitor text, so nothing can mention a channel or forge a link", () => {
    const evil = "<!channel> <https://evil.example|Open in the inbox> & <@U1>";
    const message = slackMessage(
      record({
        name: evil,
        email: "a<b>@example.com",
        company: evil,
        description: `Hello ${evil} and some more text to pass thirty characters`,
        attachment: {
          filename: "attachment.png",
          originalName: "<!here>.png",
          contentType: "image/png",
          size: 10,
          sha256: "b".repeat(64),
        },
        attribution: { page: "/?<!channel>", referrer: "<https://evil.example|x>", utm: { source: "<@U2>" } },
      }),
      "https://studio.example/inbox/K7QM-3XD9-PTWA-84HC",
    );
    for (const text of allText(message)) {
      // The only `<` left is our own link to the inbox.
      expect(text.replaceAll("<https://studio.example/inbox/K7QM-3XD9-PTWA-84HC|", "")).not.toMatch(/</);
      expect(text).not.toMatch(/>(?!$)|>\S/);
    }
    expect(message.text).toContain(
      "&lt;!channel&gt; &lt;https://evil.example|Open in the inbox&gt; &amp; &lt;@U1&gt;",
    );
    expect(message.text).toContain("&lt;!here&gt;.png");
  });

  it("says where the lead came from, when known", () => {
    const message = slackMessage(
      record({
        attribution: {
          page: "/pricing?plan=pro",
          referrer: "https://news.example/post",
          utm: { source: "newsletter", medium: "email", campaign: "spring" },
        },
      }),
      null,
    );
    const context = message.blocks.filter((block) => block.type === "context").at(-1);
    expect(context).toEqual({
      type: "context",
      elements: [
        { type: "mrkdwn", text: "Page: /pricing?plan=pro" },
        { type: "mrkdwn", text: "Referrer: https://news.example/post" },
        { type: "mrkdwn", text: "utm_source: newsletter" },
        { type: "mrkdwn", text: "utm_medium: email" },
        { type: "mrkdwn", text: "utm_campaign: spring" },
      ],
    });
    expect(message.text).toContain("Came from:\n  Page: /pricing?plan=pro");
  });
});

/** Every limit of Slack's (and Discord's, for `text`) that the message could break; none broken passes. */
function brokenLimits(message: SlackMessage): string[] {
  const broken: string[] = [];
  if (message.text.length > SLACK_LIMITS.text) broken.push(`text is ${message.text.length} characters`);
  if (message.blocks.length > SLACK_LIMITS.blocks) broken.push(`${message.blocks.length} blocks`);
  message.blocks.forEach((block, index) => {
    if ("text" in block && block.text.text.length > SLACK_LIMITS.sectionText)
      broken.push(`block ${index}: section text of ${block.text.text.length}`);
    if ("fields" in block) {
      if (block.fields.length > SLACK_LIMITS.fields)
        broken.push(`block ${index}: ${block.fields.length} fields`);
      for (const field of block.fields)
        if (field.text.length > SLACK_LIMITS.fieldText)
          broken.push(`block ${index}: a field of ${field.text.length}`);
    }
    if ("elements" in block) {
      if (block.elements.length > SLACK_LIMITS.contextElements)
        broken.push(`block ${index}: ${block.elements.length} elements`);
      for (const element of block.elements)
        if (element.text.length > SLACK_LIMITS.fieldText)
          broken.push(`block ${index}: an element of ${element.text.length}`);
    }
  });
  return broken;
}

describe("Slack's and Discord's limits, whatever the visitor typed", () => {
  // 2,000 characters of attribution: page and referrer 500 each, five utm values of 200.
  const attribution = {
    page: `/${"&".repeat(499)}`,
    referrer: `https://a.example/${"<".repeat(482)}`,
    utm: {
      source: "&".repeat(200),
      medium: ">".repeat(200),
      campaign: "&".repeat(200),
      term: "<".repeat(200),
      content: "&".repeat(200),
    },
  };

  it("a 6,000-character description full of & and a 2,000-character attribution: text <= 2000, every block within limits", () => {
    const message = slackMessage(
      record({
        name: "&".repeat(120),
        email: `${"&".repeat(64)}@example.com`,
        company: "<".repeat(160),
        description: "&".repeat(6000),
        attribution,
        attachment: {
          filename: "attachment.pdf",
          originalName: `${"&".repeat(200)}.pdf`,
          contentType: "application/pdf",
          size: 10,
          sha256: "a".repeat(64),
        },
      }),
      "https://studio.example/inbox/K7QM-3XD9-PTWA-84HC",
    );
    expect(message.text.length).toBeLessThanOrEqual(2000);
    expect(brokenLimits(message)).toEqual([]);
    // Cut with `…`, never inside an entity, and the link to the brief survives the cut.
    expect(message.text).toContain("&amp;&amp;…");
    expect(message.text).not.toMatch(/&(?!amp;|lt;|gt;)/);
    expect(message.text).toContain("|Open K7QM-3XD9-PTWA-84HC in the inbox>");
    for (const block of message.blocks)
      for (const text of "text" in block
        ? [block.text.text]
        : "fields" in block
          ? block.fields.map((f) => f.text)
          : block.elements.map((e) => e.text))
        expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
  });

  it("bidirectional controls shown as code points still fit", () => {
    const message = slackMessage(record({ description: "\u202e".repeat(6000), attribution }), null);
    expect(brokenLimits(message)).toEqual([]);
  });

  it("a short brief is not cut", () => {
    const message = slackMessage(record(), null);
    expect(message.text).not.toContain("…");
  });

  it.each([
    ["fits whole", "a&b", 9, "a&amp;b"],
    ["cut before an entity it cannot hold whole", "ab&&", 9, "ab&amp;…"],
    ["cut in code points", "🙂🙂🙂", 5, "🙂🙂…"],
    ["room for the ellipsis only", "&&", 1, "…"],
    ["no room", "&&", 0, ""],
  ])("escapeWithin: %s", (_label, text, max, expected) => {
    expect(escapeWithin(text, max)).toBe(expected);
    expect(escapeWithin(text, max).length).toBeLessThanOrEqual(max);
  });
});

describe("the slack channel against a real HTTP receiver", () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
  });

  it("posts the message as unsigned JSON; a 2xx answer is success", async () => {
    receiver.answer({ status: 200 });
    const before = receiver.received.length;
    const outcomes = await fanOut(
      [new SlackChannel(`${receiver.url}/services/T1/B1/x`, "https://studio.example")],
      notice(),
      2000,
    );
    expect(forwardedChannels(outcomes)).toEqual(["slack"]);
    const [request] = receiver.received.slice(before);
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/services/T1/B1/x");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["webhook-signature"]).toBeUndefined();
    const body = JSON.parse(request?.body ?? "") as SlackMessage;
    expect(body).toEqual(slackMessage(record(), "https://studio.example/inbox/K7QM-3XD9-PTWA-84HC"));
  });

  it.each([
    [{ status: 400 }, /HTTP 400/],
    [{ status: 500 }, /HTTP 500/],
    [{ status: 302, headers: { location: "https://elsewhere.example/hook?token=1" } }, /redirect/],
  ])("fails on %j, recorded with the reason", async (answer, reason) => {
    receiver.answer(answer);
    const before = receiver.received.length;
    const outcomes = await fanOut([new SlackChannel(receiver.url, null)], notice(), 2000);
    expect(forwardedChannels(outcomes)).toEqual([]);
    expect(outcomes.slack?.ok).toBe(false);
    expect(outcomes.slack?.error).toMatch(reason);
    // Sent once: a redirect is never followed.
    expect(receiver.received.length - before).toBe(1);
  });

  it("is a channel only when SLACK_WEBHOOK_URL is set, listed after webhook and email", () => {
    const email = {
      SMTP_URL: "smtp://127.0.0.1:2525",
      EMAIL_FROM: "intake@studio.example",
      EMAIL_TO: "ops@studio.example",
    };
    expect(createChannels(parseConfig({ ...email, WEBHOOK_URL: receiver.url })).map((c) => c.name)).toEqual([
      "webhook",
      "email",
    ]);
    const all = parseConfig({ ...email, WEBHOOK_URL: receiver.url, SLACK_WEBHOOK_URL: receiver.url });
    expect(all.slack).toEqual({ url: `${receiver.url}/` });
    expect(createChannels(all).map((c) => c.name)).toEqual(["webhook", "email", "slack"]);
    expect(() => parseConfig({ SLACK_WEBHOOK_URL: "hooks.slack.com/services/x" })).toThrow(
      /SLACK_WEBHOOK_URL/,
    );
  });

  it("links the brief's page only when the inbox on the web is on", async () => {
    receiver.answer({ status: 204 });
    const ops = {
      SITE_URL: "https://studio.example",
      SLACK_WEBHOOK_URL: receiver.url,
      OPS_EMAILS: "ops@studio.example",
      LINK_SIGNING_SECRET: "x".repeat(32),
      SMTP_URL: "smtp://127.0.0.1:2525",
      EMAIL_FROM: "intake@studio.example",
    };
    for (const [env, link] of [
      [ops, true],
      [{ ...ops, OPS_EMAILS: undefined }, false],
    ] as const) {
      const slack = createChannels(parseConfig(env)).find((channel) => channel.name === "slack");
      const before = receiver.received.length;
      await fanOut(slack ? [slack] : [], notice(), 2000);
      const body = receiver.received[before]?.body ?? "";
      expect(body.includes("https://studio.example/inbox/K7QM-3XD9-PTWA-84HC")).toBe(link);
    }
  });
});
