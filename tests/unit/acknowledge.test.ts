import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { Acknowledger, recipientId } from "@/lib/contact/acknowledge";
import type { BriefRecord } from "@/lib/briefs";
import { type Cooldown, CooldownUnavailableError } from "@/lib/ratelimit";
import { MemoryCooldown } from "@/lib/ratelimit/cooldown";
import { renderBriefAcknowledgment, VisitorMailer } from "@/lib/visitor-email";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";

/** The Acknowledger with a real SMTP server: what it renders and sends, and when it does neither. */

// Counts renders, so a test can tell an email held back from one rendered and then dropped.
vi.mock("@/lib/visitor-email", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/visitor-email")>();
  return { ...actual, renderBriefAcknowledgment: vi.fn(actual.renderBriefAcknowledgment) };
});

const EMAIL = "ada@ack-unit.example";

function brief(email = EMAIL): BriefRecord {
  return {
    reference: "NW-20261123-ABCD",
    receivedAt: "2026-11-23T10:00:00.000Z",
    name: "Ada Lovelace",
    email,
    company: null,
    role: null,
    projectType: "ai-system",
    budget: "50k-100k",
    timeline: "3-6-months",
    description: "We need a system that computes Bernoulli numbers and explains its reasoning.",
    consent: true,
    verification: "passed",
    attribution: null,
    attachment: null,
    client: { ipHash: "ab".repeat(32), userAgent: "Mozilla/5.0 (test)", origin: "https://studio.example" },
  };
}

let smtp: SmtpTestServer;
let mailer: VisitorMailer;

beforeAll(async () => {
  smtp = await startSmtpServer();
  mailer = new VisitorMailer(
    { smtpUrl: smtp.url, from: { name: "", address: "intake@studio.example" } },
    3_000,
  );
});

afterAll(async () => {
  await smtp?.stop();
});

beforeEach(() => {
  smtp.received.length = 0;
  vi.mocked(renderBriefAcknowledgment).mockClear();
});

describe("Acknowledger", () => {
  it("checks the window first: one inside it is never rendered", async () => {
    const cooldown = new MemoryCooldown(600_000);
    const acknowledger = new Acknowledger(mailer, cooldown, null, 3_000);
    expect(await acknowledger.acknowledge(brief())).toMatchObject({ ok: true });
    expect(renderBriefAcknowledgment).toHaveBeenCalledTimes(1);
    expect(await acknowledger.acknowledge(brief(EMAIL.toUpperCase()))).toMatchObject({
      ok: false,
      suppressed: true,
    });
    expect(renderBriefAcknowledgment).toHaveBeenCalledTimes(1);
    expect(smtp.received).toHaveLength(1);
  });

  it.each(["unavailable", "off"] as const)(
    "verification %s is not a pass: suppressed, the window untouched, nothing rendered",
    async (verification) => {
      const cooldown = new MemoryCooldown(600_000);
      const acknowledger = new Acknowledger(mailer, cooldown, null, 3_000);
      // `off` only on a brief stored before the acknowledgment needed Turnstile, sent again by redeliver.
      expect(await acknowledger.acknowledge({ ...brief(), verification })).toMatchObject({
        ok: false,
        suppressed: true,
        error: "not sent: human verification did not pass",
      });
      expect(renderBriefAcknowledgment).not.toHaveBeenCalled();
      expect(smtp.received).toHaveLength(0);
      expect(await cooldown.claim(recipientId(EMAIL))).not.toBeNull();
    },
  );

  it("a window that could not be checked: not rendered, not sent, failed (redeliver may retry it), no address, no warning of its own", async () => {
    const claims: string[] = [];
    const unchecked: Cooldown = {
      driver: "upstash",
      claim: async (subject) => {
        claims.push(subject);
        throw new CooldownUnavailableError("Redis failed: TypeError: fetch failed");
      },
    };
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const outcome = await new Acknowledger(mailer, unchecked, null, 3_000).acknowledge(brief());
      expect(outcome).toEqual({
        ok: false,
        at: expect.any(String),
        ms: expect.any(Number),
        error: "not sent: the 10-minute window could not be checked (Redis unavailable)",
        // Retried on the delivery schedule: Redis may answer by then.
        failure: { retryable: true },
      });
      // The cooldown warns, throttled, for every email it held back: one line per brief would flood.
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
    expect(claims).toEqual([recipientId(EMAIL)]);
    expect(renderBriefAcknowledgment).not.toHaveBeenCalled();
    expect(smtp.received).toHaveLength(0);
  });
});
