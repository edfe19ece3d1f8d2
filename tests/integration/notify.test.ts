import { createHash, randomBytes } from "node:crypto";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { briefForm, postContact, validBrief } from "../support/contact";
import { makePdf, makePng } from "../support/files";
import { findBriefFolder, listInbox, readDeliveryJson } from "../support/inbox";
import { type AppServer, freePort, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { selfSignedCertificate } from "../support/tls";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/** Small, so the failure bounds are tested in seconds: a response is due within it + 1 s. */
const NOTIFY_TIMEOUT_MS = 1000;

interface ContactAnswer {
  ok: boolean;
  reference: string;
  stored: boolean;
  forwarded: string[];
}

/** Posts a brief and returns the answer with how long it took. */
async function send(
  app: AppServer,
  fields: Record<string, string> = {},
  file?: Parameters<typeof briefForm>[1],
): Promise<{ status: number; body: ContactAnswer; elapsedMs: number; startedAt: number }> {
  const startedAt = Date.now();
  const response = await postContact(app.url, briefForm(validBrief(fields), file));
  const body = (await response.json()) as ContactAnswer;
  return { status: response.status, body, elapsedMs: Date.now() - startedAt, startedAt };
}

describe("both channels configured", () => {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  let receiver: WebhookReceiver;
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // With credentials in SMTP_URL the channel requires STARTTLS (email-tls.test.ts): the server
    // offers it with a certificate `next start` trusts as a CA.
    const certificate = await selfSignedCertificate("127.0.0.1");
    const ca = join(await tempDir(), "ca.pem");
    await writeFile(ca, certificate.cert);
    smtp = await startSmtpServer({ auth: { user: "intake", pass: "s3cret:pa/ss" }, starttls: certificate });
    inbox = await tempDir();
    app = await startApp({
      NODE_EXTRA_CA_CERTS: ca,
      INBOX_DIR: inbox,
      WEBHOOK_URL: `${receiver.url}/hooks/intake?source=site`,
      WEBHOOK_SECRET: secret,
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Studio Intake <intake@studio.example>",
      EMAIL_TO: "ops@studio.example , sales@studio.example",
      NOTIFY_TIMEOUT_MS: String(NOTIFY_TIMEOUT_MS),
    });
  });

  afterEach(() => {
    receiver.answer({ status: 204 });
    receiver.onRequest(null);
    smtp.behave("accept");
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.stop();
    await smtp?.stop();
  });

  it("forwards to both, in the order webhook, email, and records both in delivery.json", async () => {
    const { status, body, startedAt } = await send(app);
    expect(status).toBe(200);
    expect(body).toEqual({
      ok: true,
      reference: expect.any(String),
      stored: true,
      forwarded: ["webhook", "email"],
    });

    const delivery = await readDeliveryJson(inbox, body.reference);
    expect(delivery).toEqual({ webhook: delivered(), email: delivered() });
    for (const outcome of Object.values(delivery ?? {})) {
      const at = Date.parse(outcome.at);
      expect(at).toBeGreaterThanOrEqual(startedAt - 1000);
      expect(at).toBeLessThanOrEqual(Date.now());
    }
    expect(receiver.forReference(body.reference)).toHaveLength(1);
    expect(smtp.forReference(body.reference)).toHaveLength(1);
  });

  it("signs the webhook so a receiver can verify it with the secret, and sends the contract's payload", async () => {
    const pdf = makePdf("Our brief");
    const { body } = await send(app, { company: "", role: "CTO" }, { bytes: pdf, name: "Our brief.pdf" });
    const [request] = receiver.forReference(body.reference);
    expect(request).toBeDefined();
    if (!request) return;

    expect(request.method).toBe("POST");
    expect(request.path).toBe("/hooks/intake?source=site");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["webhook-id"]).toBe(`msg_${body.reference}`);

    const headers = {
      "webhook-id": String(request.headers["webhook-id"]),
      "webhook-timestamp": String(request.headers["webhook-timestamp"]),
      "webhook-signature": String(request.headers["webhook-signature"]),
    };
    const payload = new Webhook(secret).verify(request.body, headers);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString("base64")}`).verify(request.body, headers),
    ).toThrow();
    expect(() => new Webhook(secret).verify(request.body.replace("CTO", "CEO"), headers)).toThrow();

    const brief = validBrief();
    expect(payload).toEqual({
      type: "brief.received",
      reference: body.reference,
      receivedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      // Human verification is not configured in this suite.
      verification: "off",
      attribution: null,
      brief: {
        name: brief.name,
        email: brief.email,
        company: null,
        role: "CTO",
        projectType: brief.projectType,
        budget: brief.budget,
        timeline: brief.timeline,
        description: brief.description,
        consent: true,
      },
      attachment: {
        filename: "attachment.pdf",
        contentType: "application/pdf",
        size: pdf.byteLength,
        sha256: createHash("sha256").update(pdf).digest("hex"),
      },
    });
  });

  it("mails every EMAIL_TO address from EMAIL_FROM, with Reply-To the sender and the file attached", async () => {
    const png = makePng(16, 16);
    const { body } = await send(
      app,
      { name: "Grace Hopper", email: "grace@navy.example" },
      { bytes: png, name: "C:\\Users\\grace\\diagram.pdf", type: "application/pdf" },
    );
    const [mail] = smtp.forReference(body.reference);
    expect(mail).toBeDefined();
    if (!mail) return;

    expect(mail.user).toBe("intake");
    expect(mail.secure).toBe(true);
    expect(mail.envelope).toEqual({
      from: "intake@studio.example",
      to: ["ops@studio.example", "sales@studio.example"],
    });
    const { parsed } = mail;
    expect(parsed.from).toEqual({ name: "Studio Intake", address: "intake@studio.example" });
    expect(parsed.to).toEqual([
      { name: "", address: "ops@studio.example" },
      { name: "", address: "sales@studio.example" },
    ]);
    expect(parsed.replyTo).toEqual([{ name: "Grace Hopper", address: "grace@navy.example" }]);
    expect(parsed.subject).toBe(`New brief ${body.reference} from Grace Hopper`);
    expect(parsed.text).toContain(validBrief().description);
    expect(parsed.text).toContain("Project type:  AI system");
    expect(parsed.html).toContain("AI system");

    expect(parsed.attachments).toHaveLength(1);
    const [attachment] = parsed.attachments;
    // The visitor's name for the file, with the extension of what its bytes really are.
    expect(attachment?.filename).toBe("diagram.png");
    expect(attachment?.mimeType).toBe("image/png");
    expect(Buffer.from(attachment?.content as ArrayBuffer).equals(Buffer.from(png))).toBe(true);
  });

  it("escapes the visitor's text in the HTML body and keeps it out of the headers", async () => {
    const name = 'Eve <script>alert(1)</script>, Bcc: eve@evil.example "x"';
    const description =
      'Please <b>read</b> this & <script>alert("pwned")</script>\n<img src=x onerror=alert(2)>';
    const { body } = await send(app, { name, description, company: "<i>Evil</i> & Co" });
    const [mail] = smtp.forReference(body.reference);
    expect(mail).toBeDefined();
    if (!mail) return;

    const html = mail.parsed.html ?? "";
    expect(html).not.toMatch(/<script|<img|<b>|<i>/i);
    expect(html).toContain("Eve &lt;script&gt;alert(1)&lt;/script&gt;, Bcc: eve@evil.example &quot;x&quot;");
    expect(html).toMatch(
      /Please &lt;b&gt;read&lt;\/b&gt; this &amp; &lt;script&gt;alert\(&quot;pwned&quot;\)&lt;\/script&gt;<br ?\/?>&lt;img src=x onerror=alert\(2\)&gt;/,
    );
    expect(html).toContain("&lt;i&gt;Evil&lt;/i&gt; &amp; Co");
    // The plain-text body carries the text as typed.
    expect(mail.parsed.text).toContain('Please <b>read</b> this & <script>alert("pwned")</script>');
    expect(mail.parsed.text).toContain("<img src=x onerror=alert(2)>");

    // Nothing in the name became a recipient or a header.
    expect(mail.envelope.to).toEqual(["ops@studio.example", "sales@studio.example"]);
    expect(mail.parsed.replyTo).toEqual([{ name, address: "ada@example.com" }]);
    expect(mail.parsed.bcc).toBeUndefined();
    expect(mail.parsed.subject).toBe(`New brief ${body.reference} from ${name}`);
  });

  it("notifies nobody about a honeypot catch, and records no delivery for it", async () => {
    const { status, body } = await send(app, { website: "https://spam.example" });
    expect(status).toBe(200);
    expect(body.forwarded).toEqual([]);
    expect(await findBriefFolder(inbox, body.reference)).toMatch(/^spam\//);
    expect(receiver.forReference(body.reference)).toEqual([]);
    expect(smtp.forReference(body.reference)).toEqual([]);
    expect(await readDeliveryJson(inbox, body.reference, { waitMs: 0 })).toBeNull();
  });

  it("leaves the webhook out when it answers 500, and records why", async () => {
    receiver.answer({ status: 500 });
    const { status, body } = await send(app);
    expect(status).toBe(200);
    expect(body.forwarded).toEqual(["email"]);
    expect(receiver.forReference(body.reference)).toHaveLength(1);
    // 500 is worth retrying: the webhook is due again in about 5 s (the default schedule's first step).
    expect(await readDeliveryJson(inbox, body.reference)).toEqual({
      webhook: retrying("answered HTTP 500", 500),
      email: delivered(),
    });
  });

  it("answers within NOTIFY_TIMEOUT_MS + 1 s when the webhook never answers, and hangs up on it", async () => {
    receiver.answer("hang");
    const { status, body, elapsedMs } = await send(app);
    expect(status).toBe(200);
    expect(elapsedMs).toBeLessThan(NOTIFY_TIMEOUT_MS + 1000);
    // It did wait for the webhook, as long as the bound and no longer.
    expect(elapsedMs).toBeGreaterThanOrEqual(NOTIFY_TIMEOUT_MS - 50);
    expect(body.forwarded).toEqual(["email"]);
    expect(await readDeliveryJson(inbox, body.reference)).toEqual({
      webhook: retrying(`no answer within ${NOTIFY_TIMEOUT_MS} ms`),
      email: delivered(),
    });
    const [request] = receiver.forReference(body.reference);
    await expect.poll(() => request?.abandonedAt, { timeout: 1000 }).not.toBeNull();
  });

  it("does not follow a redirect, even to the same receiver", async () => {
    receiver.answer({ status: 307, headers: { location: "/moved?token=abc" } });
    const { body } = await send(app);
    expect(body.forwarded).toEqual(["email"]);
    expect(receiver.received.filter((request) => request.path.startsWith("/moved"))).toEqual([]);
    const delivery = await readDeliveryJson(inbox, body.reference);
    expect(delivery?.webhook?.ok).toBe(false);
    expect(delivery?.webhook?.error).toContain(`307 redirecting to ${receiver.url}/moved;`);
    expect(delivery?.webhook?.error).not.toContain("token");
  });

  it("leaves email out when the SMTP server refuses the message, and records the reply", async () => {
    smtp.behave({ refuse: 554 });
    const { status, body } = await send(app);
    expect(status).toBe(200);
    expect(body.forwarded).toEqual(["webhook"]);
    const delivery = await readDeliveryJson(inbox, body.reference);
    // A 5xx reply is final: failed at once, not retried.
    expect(delivery?.email).toEqual(failed(expect.stringContaining("554"), 554));
    expect(delivery?.webhook?.ok).toBe(true);
  });

  it("answers within NOTIFY_TIMEOUT_MS + 1 s when the SMTP server stalls after the message", async () => {
    smtp.behave("hang");
    const { status, body, elapsedMs } = await send(app, {}, { bytes: makePdf(), name: "brief.pdf" });
    expect(status).toBe(200);
    expect(elapsedMs).toBeLessThan(NOTIFY_TIMEOUT_MS + 1000);
    expect(body.forwarded).toEqual(["webhook"]);
    expect((await readDeliveryJson(inbox, body.reference))?.email).toEqual(
      retrying(`no answer within ${NOTIFY_TIMEOUT_MS} ms`),
    );
  });

  it("lists both channels in /api/health, never their secrets", async () => {
    const response = await fetch(`${app.url}/api/health`);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ channels: ["webhook", "email"] });
    expect(text).not.toContain("whsec_");
    expect(text).not.toContain("s3cret");
  });
});

describe("only the webhook configured, without a secret", () => {
  let receiver: WebhookReceiver;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    inbox = await tempDir();
    app = await startApp({ INBOX_DIR: inbox, WEBHOOK_URL: `${receiver.url}/intake` });
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.stop();
  });

  it("forwards to the webhook alone, unsigned", async () => {
    const { body } = await send(app);
    expect(body.forwarded).toEqual(["webhook"]);
    const [request] = receiver.forReference(body.reference);
    expect(request?.headers["webhook-signature"]).toBeUndefined();
    expect(JSON.parse(request?.body ?? "{}")).toMatchObject({ type: "brief.received", attachment: null });
    expect(await readDeliveryJson(inbox, body.reference)).toEqual({ webhook: delivered() });
  });

  it("still answers 200 with forwarded when delivery.json cannot be written, and logs it", async () => {
    // While the webhook is being delivered, put a directory where delivery.json is to be written.
    receiver.onRequest(async (request) => {
      const { reference, receivedAt } = JSON.parse(request.body) as { reference: string; receivedAt: string };
      const day = receivedAt.slice(0, 10).replaceAll("-", "/");
      await mkdir(join(inbox, "briefs", day, reference, "delivery.json"), { recursive: true });
    });
    const { status, body } = await send(app);
    expect(status).toBe(200);
    expect(body.forwarded).toEqual(["webhook"]);
    const folder = await findBriefFolder(inbox, body.reference);
    expect((await stat(join(inbox, folder ?? "", "delivery.json"))).isDirectory()).toBe(true);
    await expect.poll(() => app.output()).toContain(`could not record the delivery of ${folder}`);
  });
});

describe("webhook up, SMTP server refusing connections", () => {
  let receiver: WebhookReceiver;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    inbox = await tempDir();
    const deadPort = await freePort(); // closed again at once: nothing listens there
    app = await startApp({
      INBOX_DIR: inbox,
      WEBHOOK_URL: receiver.url,
      SMTP_URL: `smtp://127.0.0.1:${deadPort}`,
      EMAIL_FROM: "intake@studio.example",
      EMAIL_TO: "ops@studio.example",
      NOTIFY_TIMEOUT_MS: String(NOTIFY_TIMEOUT_MS),
    });
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.stop();
  });

  it("forwards to the webhook only, and records the refused connection", async () => {
    const { status, body, elapsedMs } = await send(app);
    expect(status).toBe(200);
    expect(elapsedMs).toBeLessThan(NOTIFY_TIMEOUT_MS + 1000);
    expect(body.forwarded).toEqual(["webhook"]);
    expect(await readDeliveryJson(inbox, body.reference)).toEqual({
      webhook: delivered(),
      email: retrying(expect.stringContaining("ECONNREFUSED")),
    });
  });
});

describe("only email configured", () => {
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      SMTP_URL: smtp.url,
      EMAIL_FROM: '"Studio, Intake" <intake@studio.example>',
      EMAIL_TO: "ops@studio.example",
    });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  it("forwards by email alone, with no attachment when the brief has none", async () => {
    const { body } = await send(app);
    expect(body.forwarded).toEqual(["email"]);
    const [mail] = smtp.forReference(body.reference);
    expect(mail?.envelope.to).toEqual(["ops@studio.example"]);
    expect(mail?.parsed.from).toEqual({ name: "Studio, Intake", address: "intake@studio.example" });
    expect(mail?.parsed.attachments).toEqual([]);
    expect(mail?.parsed.text).toContain("Attachment:    none");
    expect(await readDeliveryJson(inbox, body.reference)).toEqual({ email: delivered() });
    expect(await listInbox(inbox)).toContain(`${await findBriefFolder(inbox, body.reference)}/delivery.json`);
  });

  it("lists only email in /api/health", async () => {
    expect(await (await fetch(`${app.url}/api/health`)).json()).toMatchObject({ channels: ["email"] });
  });
});

/** A channel's record in delivery.json after its first attempt was delivered (its answer's status logged). */
function delivered() {
  return {
    state: "delivered",
    ok: true,
    at: expect.any(String),
    attempts: 1,
    log: [{ at: expect.any(String), ok: true, ms: expect.any(Number), status: expect.any(Number) }],
  };
}

/** After a first attempt that failed with something worth retrying: due again. */
function retrying(error: unknown, status?: number) {
  return {
    state: "retrying",
    ok: false,
    at: expect.any(String),
    attempts: 1,
    nextAttemptAt: expect.any(String),
    error,
    log: [
      { at: expect.any(String), ok: false, ms: expect.any(Number), error, ...(status ? { status } : {}) },
    ],
  };
}

/** After a first attempt whose failure is final. */
function failed(error: unknown, status?: number) {
  const record: Record<string, unknown> = { ...retrying(error, status), state: "failed" };
  delete record.nextAttemptAt;
  return record;
}
