import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SmtpSender } from "@/lib/notify/smtp";
import { briefForm, postContact, validBrief } from "../support/contact";
import { readDeliveryJson } from "../support/inbox";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { selfSignedCertificate } from "../support/tls";

/**
 * The email channel never logs in or sends a brief in cleartext where that could cross a network:
 * an `smtp://` URL with credentials (or to another host) needs STARTTLS, against real `next start`
 * and a real SMTP server that records every command it is sent. (Other hosts than loopback are a
 * unit test of the rule: tests/unit/config.test.ts.)
 */

const LOGIN = { user: "intake", pass: "s3cret" };
const EMAIL_ENV = { EMAIL_FROM: "intake@studio.example", EMAIL_TO: "ops@studio.example" };

interface ContactAnswer {
  ok: boolean;
  reference: string;
  forwarded: string[];
}

async function send(app: AppServer): Promise<{ status: number; body: ContactAnswer }> {
  const response = await postContact(app.url, briefForm(validBrief()));
  return { status: response.status, body: (await response.json()) as ContactAnswer };
}

describe("smtp:// with credentials to a server that offers no STARTTLS", () => {
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    smtp = await startSmtpServer({ auth: LOGIN });
    inbox = await tempDir();
    app = await startApp({ INBOX_DIR: inbox, SMTP_URL: smtp.url, ...EMAIL_ENV });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  it("stores the brief, leaves email out and says why, and sends neither the login nor the brief", async () => {
    expect(smtp.url).toBe(`smtp://intake:s3cret@127.0.0.1:${smtp.port}`);
    const { status, body } = await send(app);
    expect(status).toBe(200);
    expect(body.forwarded).toEqual([]);
    const delivery = await readDeliveryJson(inbox, body.reference);
    // The server cannot do STARTTLS: no later attempt would do better, so it is failed at once.
    expect(delivery?.email).toMatchObject({
      state: "failed",
      ok: false,
      attempts: 1,
      error: expect.any(String),
    });
    expect(delivery?.email?.error).toMatch(/^STARTTLS is required for SMTP_URL.*nothing was sent/);

    // The client asked for STARTTLS (refused: the server does not know it) and went no further.
    const names = smtp.commands.map((command) => command.name);
    expect(names).toContain("STARTTLS");
    expect(names).not.toContain("AUTH");
    expect(names).not.toContain("MAIL");
    expect(names).not.toContain("DATA");
    expect(smtp.received).toEqual([]);
  });
});

describe("query options in SMTP_URL cannot turn the requirement off (in process, same server)", () => {
  let smtp: SmtpTestServer;

  beforeAll(async () => {
    smtp = await startSmtpServer({ auth: LOGIN });
  });

  afterAll(async () => {
    await smtp?.stop();
  });

  it.each([
    "ignoreTLS=true",
    "ignoreTLS=true&opportunisticTLS=true",
    "opportunisticTLS=true",
    "secure=false",
  ])("?%s: refused before the login", async (query) => {
    smtp.commands.length = 0;
    const sender = new SmtpSender(`${smtp.url}?${query}`, 2_000);
    await expect(
      sender.send({ from: EMAIL_ENV.EMAIL_FROM, to: EMAIL_ENV.EMAIL_TO, subject: "x", text: "x" }),
    ).rejects.toThrow(/STARTTLS/);
    const names = smtp.commands.map((command) => command.name);
    expect(names).not.toContain("AUTH");
    expect(names).not.toContain("MAIL");
    expect(smtp.received).toEqual([]);
  });
});

describe("the same server with ?requireTLS=false (the opt-out)", () => {
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    smtp = await startSmtpServer({ auth: LOGIN });
    inbox = await tempDir();
    app = await startApp({ INBOX_DIR: inbox, SMTP_URL: `${smtp.url}?requireTLS=false`, ...EMAIL_ENV });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  it("logs in and sends in cleartext, as configured", async () => {
    const { status, body } = await send(app);
    expect(status).toBe(200);
    expect(body.forwarded).toEqual(["email"]);
    const [mail] = smtp.forReference(body.reference);
    expect(mail?.user).toBe("intake");
    expect(mail?.secure).toBe(false);
    expect(smtp.commands.filter((command) => command.name === "AUTH")).toEqual([
      { name: "AUTH", secure: false },
    ]);
  });
});

describe("smtp:// with credentials to a server that offers STARTTLS with a trusted certificate", () => {
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    const certificate = await selfSignedCertificate("127.0.0.1");
    const dir = await tempDir();
    await writeFile(join(dir, "ca.pem"), certificate.cert);
    smtp = await startSmtpServer({ auth: LOGIN, starttls: certificate });
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      SMTP_URL: smtp.url,
      ...EMAIL_ENV,
      // `next start` trusts the test certificate as a CA, as it would a real provider's chain.
      NODE_EXTRA_CA_CERTS: join(dir, "ca.pem"),
    });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  it("upgrades before it logs in, and sends over TLS", async () => {
    const { status, body } = await send(app);
    expect(status).toBe(200);
    expect(body.forwarded).toEqual(["email"]);
    const [mail] = smtp.forReference(body.reference);
    expect(mail?.user).toBe("intake");
    expect(mail?.secure).toBe(true);
    const sensitive = smtp.commands.filter((command) =>
      ["AUTH", "MAIL", "RCPT", "DATA"].includes(command.name),
    );
    expect(sensitive.map((command) => command.name)).toEqual(["AUTH", "MAIL", "RCPT", "DATA"]);
    expect(sensitive.every((command) => command.secure)).toBe(true);
  });
});
