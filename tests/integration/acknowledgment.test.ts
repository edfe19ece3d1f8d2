import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { briefForm, postContact, validBrief } from "../support/contact";
import { readBriefJson, readDeliveryJson } from "../support/inbox";
import { runInbox } from "../support/ops";
import { header, mailsTo } from "../support/opt-in";
import { type RedisServer, startRedis } from "../support/redis";
import { type AppServer, startApp, startAppExpectingFailure, tempDir } from "../support/server";
import { type SiteverifyStandIn, standInToken, startSiteverifyStandIn } from "../support/siteverify-standin";
import { type ReceivedMail, type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { startUpstashBridge, type UpstashBridge } from "../support/upstash-bridge";

/**
 * `CONTACT_ACKNOWLEDGE=true` under `next start`, against a real SMTP server: the email the sender
 * gets, when none is sent, the 10-minute window shared by two instances through Redis, and a hung
 * SMTP server held to `NOTIFY_TIMEOUT_MS`.
 */

const OPS = "ops@studio.example";
const FROM = "Studio <intake@studio.example>";
const TURNSTILE_SECRET = "0x4AAAAAAA-integration-secret";

/** The acknowledgment needs human verification: every app here checks with the siteverify stand-in. */
let siteverify: SiteverifyStandIn;

beforeAll(async () => {
  siteverify = await startSiteverifyStandIn({ secret: TURNSTILE_SECRET, hostname: "127.0.0.1" });
});

afterAll(async () => {
  await siteverify?.stop();
});

function turnstileEnv(): Record<string, string> {
  return {
    TURNSTILE_SECRET_KEY: TURNSTILE_SECRET,
    TURNSTILE_SITE_KEY: "0x4AAAAAAA-integration-site-key",
    TURNSTILE_VERIFY_URL: siteverify.url,
  };
}

/** The form field of a token siteverify passes (or answers as `behaviour`). */
function passed(behaviour: Parameters<typeof standInToken>[0] = "pass"): Record<string, string> {
  return { "cf-turnstile-response": standInToken(behaviour, "contact") };
}

let counter = 0;
const freshEmail = () => `sender${(counter += 1)}@ack-${Date.now().toString(36)}.example`;

async function send(app: AppServer, fields: Record<string, string>, file?: Parameters<typeof briefForm>[1]) {
  const response = await postContact(app.url, briefForm(validBrief(fields), file));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function waitFor<T>(probe: () => T | undefined, ms = 5_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The acknowledgment for a reference: the message sent to the submitter (ops' mail goes to OPS). */
function acknowledgmentsTo(smtp: SmtpTestServer, email: string): ReceivedMail[] {
  return mailsTo(smtp, email);
}

describe("the acknowledgment email", () => {
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      CONTACT_ACKNOWLEDGE: "true",
      SMTP_URL: smtp.url,
      EMAIL_FROM: FROM,
      EMAIL_TO: `${OPS}, second@studio.example`,
      ...turnstileEnv(),
    });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  it("has the reference in its subject, labels not wire values, the file's size, the next steps, and Reply-To the first EMAIL_TO", async () => {
    const email = freshEmail();
    const { status, body } = await send(
      app,
      { email, ...passed() },
      {
        bytes: new TextEncoder().encode("# Our brief\n\nPlease read.\n".repeat(100)),
        name: "brief notes.md",
        type: "text/markdown",
      },
    );
    expect(status).toBe(200);
    const reference = body.reference as string;
    const mail = await waitFor(() => acknowledgmentsTo(smtp, email)[0]);
    expect(mail.envelope.to).toEqual([email]);
    expect(mail.parsed.subject).toBe(`We received your brief \u2013 ${reference}`);
    expect(mail.parsed.from?.address).toBe("intake@studio.example");
    expect(mail.parsed.replyTo?.map((box) => box.address)).toEqual([OPS]);
    expect(mail.parsed.attachments).toEqual([]);

    const text = mail.parsed.text ?? "";
    for (const expected of [
      reference,
      "Project type: AI system",
      "Budget: $50k-$100k",
      "Timeline: 3-6 months",
      "Attachment: a file (2.5 KB)",
      "A partner reads every brief within two working days.",
      "If we are a good fit, you get a written proposal within a week of that call.",
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain("ai-system");
    expect(text).not.toContain("50k-100k\n");
    expect(mail.parsed.html ?? "").toContain("AI system");

    const delivery = await readDeliveryJson(inbox, reference);
    expect(delivery?.acknowledgment).toMatchObject({ ok: true });
    expect(body.forwarded).toEqual(["email"]);
  });

  it("repeats nothing the visitor typed: no name, address, company, role, description or file name", async () => {
    const email = freshEmail();
    const typed = {
      name: "Name-Marker-7f3a <script>alert(1)</script>",
      company: "Company-Marker-51bd https://spam.example/company",
      role: "Role-Marker-a04e",
      description:
        "Description-Marker-e81c: claim your prize at https://spam.example/offer\r\nBcc: victim@evil.example",
    };
    const { status, body } = await send(
      app,
      { email, ...typed, ...passed() },
      {
        bytes: new TextEncoder().encode("# Notes\n"),
        name: "Filename-Marker-93d2.md",
        type: "text/markdown",
      },
    );
    expect(status).toBe(200);
    const mail = await waitFor(() => acknowledgmentsTo(smtp, email)[0]);
    const rawHeaders = mail.raw.toString("latin1").split("\r\n\r\n")[0] ?? "";
    expect(header(mail, "bcc")).toBeUndefined();
    for (const part of [
      mail.parsed.subject ?? "",
      mail.parsed.text ?? "",
      mail.parsed.html ?? "",
      rawHeaders,
    ]) {
      for (const marker of [
        "Name-Marker-7f3a",
        "Company-Marker-51bd",
        "Role-Marker-a04e",
        "Description-Marker-e81c",
        "Filename-Marker-93d2",
        "spam.example",
        "victim@evil.example",
      ]) {
        expect(part).not.toContain(marker);
      }
    }
    // The address is the envelope's and the To header's only: the body never quotes it.
    expect(mail.parsed.text ?? "").not.toContain(email);
    expect(mail.parsed.html ?? "").not.toContain(email);
    expect(mail.parsed.text ?? "").toContain(body.reference as string);
  });

  it("refuses a name with CRLF (single-line field): nothing stored, nothing sent", async () => {
    const email = freshEmail();
    const { status } = await send(app, { name: "Ada\r\nBcc: victim@evil.example", email, ...passed() });
    expect(status).toBe(422);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(acknowledgmentsTo(smtp, email)).toHaveLength(0);
  });

  it("sends nothing for a honeypot catch", async () => {
    const email = freshEmail();
    const { status, body } = await send(app, { email, website: "https://spam.example", ...passed() });
    expect(status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(acknowledgmentsTo(smtp, email)).toHaveLength(0);
    expect(await readDeliveryJson(inbox, body.reference as string, { waitMs: 0 })).toBeNull();
  });

  it("sends one per address per 10 minutes, whatever the case, and records the second as suppressed", async () => {
    const email = freshEmail();
    const first = await send(app, { email, ...passed() });
    const second = await send(app, { email: email.toUpperCase(), ...passed() });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.forwarded).toEqual(["email"]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(acknowledgmentsTo(smtp, email)).toHaveLength(1);
    expect((await readDeliveryJson(inbox, second.body.reference as string))?.acknowledgment).toMatchObject({
      ok: false,
      suppressed: true,
      error: expect.stringContaining("10 minutes"),
    });
  });
});

describe("with EMAIL_REPLY_TO", () => {
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      CONTACT_ACKNOWLEDGE: "true",
      SMTP_URL: smtp.url,
      EMAIL_FROM: FROM,
      EMAIL_REPLY_TO: "Hello <hello@studio.example>",
      ...turnstileEnv(),
    });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  it("a passed check is acknowledged, with Reply-To EMAIL_REPLY_TO", async () => {
    const email = freshEmail();
    const { status } = await send(app, { email, ...passed("pass") });
    expect(status).toBe(200);
    const mail = await waitFor(() => acknowledgmentsTo(smtp, email)[0]);
    expect(mail.parsed.replyTo?.map((box) => box.address)).toEqual(["hello@studio.example"]);
  });

  it("a failed check sends nothing", async () => {
    const email = freshEmail();
    const { status } = await send(app, { email, ...passed("fail") });
    expect(status).toBeGreaterThanOrEqual(400);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(acknowledgmentsTo(smtp, email)).toHaveLength(0);
  });

  it("an unavailable check (siteverify down, the brief let through) sends nothing and records why", async () => {
    const email = freshEmail();
    const { status, body } = await send(app, { email, ...passed("error-500") });
    expect(status).toBe(200);
    expect((await readBriefJson(inbox, body.reference as string)).verification).toBe("unavailable");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(acknowledgmentsTo(smtp, email)).toHaveLength(0);
    expect((await readDeliveryJson(inbox, body.reference as string))?.acknowledgment).toMatchObject({
      ok: false,
      suppressed: true,
      error: expect.stringContaining("verification"),
    });
  });
});

describe("two instances sharing Upstash", () => {
  let redis: RedisServer;
  let bridge: UpstashBridge;
  let smtp: SmtpTestServer;
  let first: AppServer;
  let second: AppServer;

  beforeAll(async () => {
    redis = await startRedis();
    bridge = await startUpstashBridge(redis.port);
    smtp = await startSmtpServer();
    const env = {
      INBOX_DIR: await tempDir(),
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      CONTACT_ACKNOWLEDGE: "true",
      SMTP_URL: smtp.url,
      EMAIL_FROM: FROM,
      ...turnstileEnv(),
    };
    [first, second] = await Promise.all([startApp(env), startApp(env)]);
  });

  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await smtp?.stop();
    await bridge?.close();
    await redis?.stop();
  });

  it("one acknowledgment per address per 10 minutes across both, keyed by a hash, never the address", async () => {
    const email = freshEmail();
    for (const app of [first, second, first]) {
      expect((await send(app, { email, ...passed() })).status).toBe(200);
    }
    await waitFor(() => acknowledgmentsTo(smtp, email)[0]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(acknowledgmentsTo(smtp, email)).toHaveLength(1);
    const client = await redis.connect();
    try {
      const keys = ((await client.command(["KEYS", "intake:cooldown:acknowledgment:*"])) as Buffer[]).map(
        String,
      );
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatch(/^intake:cooldown:acknowledgment:[0-9a-f]{32}$/);
      expect(keys[0]).not.toContain(email.split("@")[0]);
    } finally {
      client.close();
    }
  });
});

describe("a hung SMTP server", () => {
  const TIMEOUT_MS = 1_500;
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      CONTACT_ACKNOWLEDGE: "true",
      SMTP_URL: smtp.url,
      EMAIL_FROM: FROM,
      NOTIFY_TIMEOUT_MS: String(TIMEOUT_MS),
      // Repaired by hand here (redeliver --acknowledgment); the schedule's retries are tested apart.
      DELIVERY_RETRY_SCHEDULE: "off",
      ...turnstileEnv(),
    });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  const email = freshEmail();
  let reference = "";

  it("answers within NOTIFY_TIMEOUT_MS + 1 s and records the failure", async () => {
    // A first request loads the route's modules: the bound is about the notifications, not that.
    expect((await postContact(app.url, briefForm({}))).status).toBe(422);
    smtp.behave("hang");
    const startedAt = Date.now();
    const response = await postContact(app.url, briefForm(validBrief({ email, ...passed() })));
    const elapsed = Date.now() - startedAt;
    expect(response.status).toBe(200);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1_000);
    const body = (await response.json()) as { reference: string; forwarded: string[] };
    reference = body.reference;
    expect(body.forwarded).toEqual([]);
    const delivery = await readDeliveryJson(inbox, body.reference);
    expect(delivery?.acknowledgment).toMatchObject({ ok: false, error: expect.any(String) });
    expect(delivery?.acknowledgment).not.toHaveProperty("suppressed");
    expect(delivery).not.toHaveProperty("email");
  });

  it("redeliver retries the failed acknowledgment only with --acknowledgment, and never twice", async () => {
    smtp.behave("accept");
    const env = {
      INBOX_DIR: inbox,
      CONTACT_ACKNOWLEDGE: "true",
      SMTP_URL: smtp.url,
      EMAIL_FROM: FROM,
      NOTIFY_TIMEOUT_MS: "5000",
      ...turnstileEnv(),
    };
    const plain = await runInbox(["redeliver", reference], { env });
    expect(plain.stderr + plain.stdout).not.toContain("Usage");
    expect(plain.code).toBe(0);
    expect(acknowledgmentsTo(smtp, email)).toHaveLength(0);
    expect((await readDeliveryJson(inbox, reference))?.acknowledgment).toMatchObject({ ok: false });

    const asked = await runInbox(["redeliver", "--failed", "--acknowledgment"], { env });
    expect(asked.stdout).toContain("acknowledgment ✓ sent");
    expect(asked.code).toBe(0);
    expect(acknowledgmentsTo(smtp, email)).toHaveLength(1);
    expect((await readDeliveryJson(inbox, reference))?.acknowledgment).toMatchObject({ ok: true });

    const again = await runInbox(["redeliver", reference, "--acknowledgment"], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("nothing to redeliver");
    expect(acknowledgmentsTo(smtp, email)).toHaveLength(1);
  });
});

describe("without human verification", () => {
  it("CONTACT_ACKNOWLEDGE=true stops the start, naming it and the Turnstile keys", async () => {
    const { code, output } = await startAppExpectingFailure({
      INBOX_DIR: await tempDir(),
      CONTACT_ACKNOWLEDGE: "true",
      SMTP_URL: "smtp://127.0.0.1:2525",
      EMAIL_FROM: FROM,
    });
    expect(code).not.toBe(0);
    for (const name of ["CONTACT_ACKNOWLEDGE", "TURNSTILE_SECRET_KEY", "TURNSTILE_SITE_KEY"]) {
      expect(output).toContain(name);
    }
  });
});

describe("while Redis is down or slow, the window fails closed", () => {
  let redis: RedisServer;
  let bridge: UpstashBridge;
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    redis = await startRedis();
    bridge = await startUpstashBridge(redis.port);
    smtp = await startSmtpServer();
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      CONTACT_ACKNOWLEDGE: "true",
      SMTP_URL: smtp.url,
      EMAIL_FROM: FROM,
      EMAIL_TO: OPS,
      ...turnstileEnv(),
    });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
    await bridge?.close();
    await redis?.stop();
  });

  const heldBack = () =>
    app.output().match(/\[ratelimit\] .*under intake:cooldown:acknowledgment held back/g) ?? [];

  it("stores and forwards the brief (200), sends no acknowledgment, records why without the address, and warns once", async () => {
    expect((await send(app, { email: freshEmail(), ...passed() })).status).toBe(200); // Redis answers
    const senders = [freshEmail(), freshEmail(), freshEmail()];
    const answers = [];
    redis.pause();
    try {
      answers.push(await send(app, { email: senders[0]!, ...passed() }));
    } finally {
      await redis.kill();
    }
    for (const email of senders.slice(1)) answers.push(await send(app, { email, ...passed() }));

    for (const [index, { status, body }] of answers.entries()) {
      expect(status).toBe(200);
      expect(body.forwarded).toEqual(["email"]);
      const reference = body.reference as string;
      expect((await readBriefJson(inbox, reference)).email).toBe(senders[index]);
      const delivery = await readDeliveryJson(inbox, reference);
      expect(delivery?.acknowledgment).toMatchObject({
        ok: false,
        error: expect.stringMatching(/not sent: .*could not be checked/),
      });
      expect(delivery?.acknowledgment).not.toHaveProperty("suppressed");
      expect(JSON.stringify(delivery)).not.toContain(senders[index]);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const email of senders) expect(acknowledgmentsTo(smtp, email)).toHaveLength(0);
    expect(heldBack()).toHaveLength(1);
    for (const email of senders) expect(app.output()).not.toContain(email);
  });
});
