import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextAddress } from "../support/contact";
import { LINK_SECRET, mailsTo } from "../support/opt-in";
import { signInLink } from "../support/ops-web";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SiteverifyStandIn, standInToken, startSiteverifyStandIn } from "../support/siteverify-standin";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";

/**
 * With human verification on, the inbox's sign-in asks for Turnstile too (action `ops-sign-in`),
 * checked by a siteverify stand-in; the page renders the widget.
 */

const SECRET = "0x4AAAAAAA-ops-web-secret";
const SITE_KEY = "0x4AAAAAAA-ops-web-site-key";
const OPS = "ops@studio.example";
/** Listed, and asked for only with failing checks before one that passes. */
const PRODUCER = "producer@studio.example";

let siteverify: SiteverifyStandIn;
let smtp: SmtpTestServer;
let app: AppServer;

beforeAll(async () => {
  siteverify = await startSiteverifyStandIn({ secret: SECRET, hostname: "127.0.0.1" });
  smtp = await startSmtpServer();
  app = await startApp({
    INBOX_DIR: await tempDir(),
    TURNSTILE_SECRET_KEY: SECRET,
    TURNSTILE_SITE_KEY: SITE_KEY,
    TURNSTILE_VERIFY_URL: siteverify.url,
    OPS_EMAILS: `${OPS},${PRODUCER}`,
    LINK_SIGNING_SECRET: LINK_SECRET,
    SMTP_URL: smtp.url,
    EMAIL_FROM: "intake@studio.example",
  });
});

afterAll(async () => {
  await app?.stop();
  await smtp?.stop();
  await siteverify?.stop();
});

function ask(body: Record<string, string>): Promise<Response> {
  return fetch(`${app.url}/api/ops/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextAddress() },
    body: JSON.stringify(body),
  });
}

describe("sign-in with Turnstile on", () => {
  it("refuses a missing, failed or other form's token with 403 and no email; a passing one sends the link", async () => {
    for (const token of [null, standInToken("fail", "ops-sign-in"), standInToken("pass", "contact")]) {
      const response = await ask({
        email: OPS,
        ...(token === null ? {} : { "cf-turnstile-response": token }),
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: "challenge_failed" });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(smtp, OPS)).toEqual([]);

    const passed = await ask({ email: OPS, "cf-turnstile-response": standInToken("pass", "ops-sign-in") });
    expect(passed.status).toBe(200);
    await signInLink(smtp, OPS);
  });

  it("a failed check charges no address's budget: after 6 failures for one address, its owner still gets a link", async () => {
    for (let i = 0; i < 6; i++) {
      const response = await ask({
        email: PRODUCER,
        "cf-turnstile-response": standInToken("fail", "ops-sign-in"),
      });
      expect(response.status, `request ${i + 1}`).toBe(403);
      expect(await response.json()).toMatchObject({ error: "challenge_failed" });
    }
    const passed = await ask({
      email: PRODUCER,
      "cf-turnstile-response": standInToken("pass", "ops-sign-in"),
    });
    expect(passed.status).toBe(200);
    expect(await passed.json()).toEqual({ ok: true, status: "link-sent" });
    await signInLink(smtp, PRODUCER);
  });

  it("the sign-in page carries the site key for the widget", async () => {
    const page = await (await fetch(`${app.url}/inbox/sign-in`)).text();
    expect(page).toContain(SITE_KEY);
  });
});
