import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { nextAddress } from "../support/contact";
import { postNewsletter, subscriberFile } from "../support/newsletter";
import { LINK_SECRET, linksIn, mailsTo, postConfirm, tokenOf, waitForMails } from "../support/opt-in";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";

/**
 * `consent.site` under single opt-in, against `next start` and a real SMTP server: a post a browser
 * marked as sent from another site is kept `pending` and sent one confirmation email while email
 * is set up (a hostile page cannot subscribe its visitors' choice of addresses), and only the link
 * confirms it; the site's own pages and scripts subscribe at once as before.
 */

const EVIL = "https://evil.example";

let counter = 0;
function freshEmail(): string {
  counter += 1;
  return `bystander+${counter}@cross-site-${Date.now().toString(36)}.example`;
}

async function readRecord(dir: string, email: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(subscriberFile(dir, email), "utf8")) as Record<string, unknown>;
}

/** A browser's form post from another site's page (no JavaScript: form-encoded, wants HTML). */
function crossSiteFormPost(url: string, email: string): Promise<Response> {
  return fetch(`${url}/api/newsletter`, {
    method: "POST",
    body: new URLSearchParams({ email, topics: "AI" }).toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/html",
      origin: EVIL,
      "sec-fetch-site": "cross-site",
      "x-forwarded-for": nextAddress(),
    },
    redirect: "manual",
  });
}

describe("single opt-in with confirmation emails possible", () => {
  let dir: string;
  let smtp: SmtpTestServer;
  let app: AppServer;

  beforeAll(async () => {
    dir = await tempDir();
    smtp = await startSmtpServer();
    app = await startApp({
      INBOX_DIR: dir,
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Northwind Studio <news@studio.example>",
      LINK_SIGNING_SECRET: LINK_SECRET,
    });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  beforeEach(() => smtp.behave("accept"));

  it("a cross-site form post: a pending record saying cross-site, exactly one confirmation email, confirmed only by its link", async () => {
    const email = freshEmail();
    const response = await crossSiteFormPost(app.url, email);
    expect(response.status).toBe(303);

    const pending = await readRecord(dir, email);
    expect(pending).toMatchObject({ email, status: "pending", confirmedAt: null });
    expect(pending.consent).toMatchObject({ method: "double", site: "cross-site" });
    const [mail] = await waitForMails(smtp, email);
    if (!mail) throw new Error("no mail");
    // Nothing more comes: one email, not one per channel or retry.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(smtp, email)).toHaveLength(1);

    const confirmed = await postConfirm(app.url, { token: tokenOf(linksIn(mail).confirm) });
    expect(confirmed.status).toBe(200);
    const record = await readRecord(dir, email);
    expect(record).toMatchObject({ status: "confirmed" });
    expect(record.consent).toMatchObject({ site: "cross-site" });
    expect((record.consent as { confirmedAt?: string }).confirmedAt).toEqual(expect.any(String));
  });

  it("a JSON post whose Origin is another site's: the same", async () => {
    const email = freshEmail();
    const response = await postNewsletter(app.url, { email }, { origin: EVIL });
    expect(await response.json()).toEqual({ ok: true, status: "confirmation-sent" });
    expect(await readRecord(dir, email)).toMatchObject({
      status: "pending",
      consent: { site: "cross-site" },
    });
    await waitForMails(smtp, email);
  });

  it.each<[string, Record<string, string>, string]>([
    ["the site's own page (its Origin)", { origin: "SELF" }, "same-origin"],
    ["Sec-Fetch-Site: same-origin", { "sec-fetch-site": "same-origin" }, "same-origin"],
    ["a script with neither header", {}, "unknown"],
  ])("%s: subscribed at once as before, no email", async (_label, headers, site) => {
    const email = freshEmail();
    const sent = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, value === "SELF" ? app.url : value]),
    );
    const response = await postNewsletter(app.url, { email }, sent);
    expect(await response.json()).toEqual({ ok: true, status: "subscribed" });
    expect(await readRecord(dir, email)).toMatchObject({
      status: "confirmed",
      consent: { method: "single", site },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(smtp, email)).toHaveLength(0);
  });
});
