import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BriefRecord } from "@/lib/briefs";
import { parseConfig } from "@/lib/config";
import { createChannels, fanOut } from "@/lib/notify";
import { emailRecipients } from "@/lib/notify/email";
import { emailText } from "@/lib/notify/message";
import type { BriefNotice } from "@/lib/notify/types";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";

const EMAIL_ENV = {
  SMTP_URL: "smtp://127.0.0.1:2525",
  EMAIL_FROM: "Studio <intake@studio.example>",
  EMAIL_TO: "ops@studio.example",
};

describe("EMAIL_ROUTES", () => {
  const accepted: [string, Record<string, string[]>][] = [
    ["ai-system=ml@studio.example", { "ai-system": ["ml@studio.example"] }],
    [
      "ai-system=ml@studio.example;mobile-application=apps@studio.example",
      { "ai-system": ["ml@studio.example"], "mobile-application": ["apps@studio.example"] },
    ],
    [
      " ai-system = ml@studio.example , lead@studio.example ; ; other=x@y.example; ",
      { "ai-system": ["ml@studio.example", "lead@studio.example"], other: ["x@y.example"] },
    ],
    ["", {}],
  ];
  it.each(accepted)("%j -> %j", (routes, expected) => {
    const config = parseConfig({ ...EMAIL_ENV, EMAIL_ROUTES: routes });
    expect(config.emailRoutes).toEqual(expected);
    expect(config.warnings).toEqual([]);
  });

  const refused: [string, string, RegExp][] = [
    ["an unknown project type", "robotics=r@studio.example", /"robotics" is not a project type/],
    ["a label instead of the value", "AI system=r@studio.example", /"AI system" is not a project type/],
    ["a project type in capitals", "AI-SYSTEM=r@studio.example", /not a project type/],
    ["an inherited property name", "constructor=r@studio.example", /not a project type/],
    ["a bad address", "ai-system=not-an-address", /not an address: not-an-address/],
    ["a bad address among good ones", "ai-system=a@x.example,b@", /not an address: b@/],
    ["no address", "ai-system=", /ai-system has no address/],
    ["no =", "ai-system ml@studio.example", /has no =/],
    ["a type routed twice", "other=a@x.example;other=b@x.example", /other is routed twice/],
  ];
  it.each(refused)("refuses %s, naming EMAIL_ROUTES", (_label, routes, message) => {
    let error: unknown;
    try {
      parseConfig({ ...EMAIL_ENV, EMAIL_ROUTES: routes });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe("ConfigError");
    expect((error as Error).message).toMatch(/EMAIL_ROUTES/);
    expect((error as Error).message).toMatch(message);
  });

  it("is checked even without the email channel, and then warns that nothing is routed", () => {
    expect(() => parseConfig({ EMAIL_ROUTES: "robots=a@x.example" })).toThrow(/EMAIL_ROUTES/);
    const config = parseConfig({ EMAIL_ROUTES: "other=a@x.example" });
    expect(config.warnings).toEqual([
      expect.stringContaining("EMAIL_ROUTES is set but the email channel is not configured"),
    ]);
  });

  it("picks the project type's addresses, else EMAIL_TO", () => {
    const settings = { to: ["ops@studio.example"], routes: { "ai-system": ["ml@studio.example"] } };
    expect(emailRecipients(settings, "ai-system")).toEqual(["ml@studio.example"]);
    expect(emailRecipients(settings, "other")).toEqual(["ops@studio.example"]);
    expect(emailRecipients(settings, "toString")).toEqual(["ops@studio.example"]);
    expect(emailRecipients({ to: ["ops@studio.example"] }, "ai-system")).toEqual(["ops@studio.example"]);
  });
});

function record(overrides: Partial<BriefRecord> = {}): BriefRecord {
  return {
    reference: "K7QM-3XD9-PTWA-84HC",
    receivedAt: "2026-11-22T10:00:00.000Z",
    name: "Ada Lovelace",
    email: "ada@example.com",
    company: null,
    role: null,
    projectType: "ai-system",
    budget: "50k-100k",
    timeline: "3-6-months",
    description: "We need a system that computes Bernoulli numbers.",
    consent: true,
    attachment: null,
    verification: "passed",
    client: { ipHash: null, userAgent: null, origin: null },
    attribution: null,
    ...overrides,
  };
}

const notice = (overrides: Partial<BriefRecord>): BriefNotice => ({
  record: record(overrides),
  attachment: null,
  folder: "briefs/2026/11/22/x",
});

describe("the ops email over a real SMTP server", () => {
  let smtp: SmtpTestServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp.stop();
  });

  it("goes to the routed addresses for a routed type, and to EMAIL_TO for the others", async () => {
    const config = parseConfig({
      ...EMAIL_ENV,
      SMTP_URL: smtp.url,
      EMAIL_TO: "ops@studio.example",
      EMAIL_ROUTES: "ai-system=ml@studio.example,lead@studio.example;mobile-application=apps@studio.example",
    });
    const channels = createChannels(config);
    const routed = await fanOut(channels, notice({ reference: "ROUT-ED00-0000-0001" }), 5000);
    const other = await fanOut(
      channels,
      notice({ reference: "ROUT-ED00-0000-0002", projectType: "other" }),
      5000,
    );
    expect(routed.email?.ok).toBe(true);
    expect(other.email?.ok).toBe(true);

    const [toRoute] = smtp.forReference("ROUT-ED00-0000-0001");
    expect(toRoute?.envelope.to).toEqual(["ml@studio.example", "lead@studio.example"]);
    expect(toRoute?.parsed.to?.map((address) => address.address)).toEqual([
      "ml@studio.example",
      "lead@studio.example",
    ]);
    const [toOps] = smtp.forReference("ROUT-ED00-0000-0002");
    expect(toOps?.envelope.to).toEqual(["ops@studio.example"]);
  });
});

describe("the ops email says where the lead came from", () => {
  it("in both bodies, escaped in HTML, and not at all when unknown", () => {
    const { text, html } = emailText(
      notice({
        attribution: {
          page: "/pricing?a=1&b=<2>",
          referrer: "https://news.example/post",
          utm: { source: "newsletter", content: "hero" },
        },
      }),
    );
    expect(text).toContain(
      [
        "Where it came from",
        "------------------",
        "Page:         /pricing?a=1&b=<2>",
        "Referrer:     https://news.example/post",
        "utm_source:   newsletter",
        "utm_content:  hero",
      ].join("\n"),
    );
    expect(html).toContain("Where it came from");
    expect(html).toContain("/pricing?a=1&amp;b=&lt;2&gt;");
    expect(html).not.toContain("<2>");
    const unknown = emailText(notice({ attribution: null }));
    expect(unknown.text).not.toContain("Where it came from");
    expect(unknown.html).not.toContain("Where it came from");
  });
});
