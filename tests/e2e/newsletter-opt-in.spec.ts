import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { subscriberFile } from "../support/newsletter";
import { LINK_SECRET, mailsTo, signLink, subscriberIdOf } from "../support/opt-in";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { expect, expectNoViolations, test } from "./fixtures";

/**
 * Double opt-in in real Chromium: the visitor subscribes in the footer, the confirmation email
 * arrives at a real SMTP server, and the browser follows the link from that email (the HTML
 * body's button, as a person clicks it) and confirms with the page's button. The app is a
 * `next start` of its own, with double opt-in on and its own inbox.
 */

test.describe.configure({ mode: "serial" });

let smtp: SmtpTestServer;
let app: AppServer;
let inbox: string;

test.beforeAll(async () => {
  smtp = await startSmtpServer();
  inbox = await tempDir("e2e-opt-in-");
  app = await startApp({
    INBOX_DIR: inbox,
    NEWSLETTER_DOUBLE_OPT_IN: "true",
    SMTP_URL: smtp.url,
    EMAIL_FROM: "Northwind Studio <news@studio.example>",
    LINK_SIGNING_SECRET: LINK_SECRET,
    IP_HASH_SALT: "e2e",
  });
});

test.afterAll(async () => {
  await app?.stop();
  await smtp?.stop();
});

async function stored(email: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(subscriberFile(inbox, email), "utf8")) as Record<string, unknown>;
}

/** The mail's links as a person meets them: the hrefs of its HTML body, by their text. */
async function linkInMail(email: string, text: string): Promise<string> {
  await expect.poll(() => mailsTo(smtp, email).length, { timeout: 10_000 }).toBe(1);
  const html = mailsTo(smtp, email)[0]?.parsed.html ?? "";
  const anchors = [...html.matchAll(/<a href="([^"]+)"[^>]*>([\s\S]*?)<\/a>/g)];
  // Its text without tags, comments or the spacer characters React Email adds for Outlook.
  const textOf = (inner: string) => inner.replace(/<[^>]+>|&#\d+;/g, "").trim();
  const anchor = anchors.find(([, , inner]) => textOf(inner ?? "") === text);
  if (!anchor?.[1]) throw new Error(`no "${text}" link in the mail`);
  return anchor[1].replaceAll("&amp;", "&");
}

function footerForm(page: Page) {
  return page.getByRole("contentinfo").getByRole("form", { name: "Newsletter" });
}

test("subscribe in the footer, follow the email's link, confirm with the button; then unsubscribe from the same email", async ({
  page,
}, testInfo) => {
  const email = `opt.in.${testInfo.workerIndex}@example.com`;
  await page.goto(`${app.url}/`);
  await footerForm(page).getByLabel("Email", { exact: true }).fill(email);
  await footerForm(page).getByLabel("Research").check();
  await footerForm(page).getByRole("button", { name: "Subscribe" }).click();
  await expect(footerForm(page).getByRole("status")).toHaveText(
    "Almost done: we have emailed you a link. Open it to confirm your subscription.",
  );
  expect(await stored(email)).toMatchObject({ status: "pending", topics: ["Research"] });

  const confirm = await linkInMail(email, "Confirm my subscription");
  expect(confirm.startsWith(`${app.url}/newsletter/confirm?token=`)).toBe(true);
  await page.goto(confirm);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Confirm your subscription");
  await expect(page.getByRole("main")).toContainText(email);
  await expect(page.getByRole("main")).toContainText("Topics: Research.");
  await expectNoViolations(page, "the confirmation page");
  // Opening the page confirmed nothing.
  expect((await stored(email)).status).toBe("pending");

  await page.getByRole("button", { name: "Confirm subscription" }).click();
  await expect(page.getByTestId("link-status")).toHaveText(
    "Thank you: you are subscribed. The next issue will be in your inbox.",
  );
  await expect(page.getByRole("button", { name: "Confirm subscription" })).toHaveCount(0);
  expect(await stored(email)).toMatchObject({ status: "confirmed", confirmedAt: expect.any(String) });
  await expectNoViolations(page, "the confirmation done");

  const unsubscribe = await linkInMail(email, "Unsubscribe");
  await page.goto(unsubscribe);
  await expect(page.getByRole("main")).toContainText(`Stop sending our newsletter to ${email}?`);
  await page.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(page.getByTestId("link-status")).toHaveText(
    "You are unsubscribed. We will not send you the newsletter again.",
  );
  expect(await stored(email)).toMatchObject({ status: "unsubscribed", unsubscribedAt: expect.any(String) });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: testInfo.outputPath("unsubscribed-mobile.png"), fullPage: true });
});

test("an expired link says so and offers no button", async ({ page }) => {
  const token = signLink(app.url, { act: "confirm", sub: subscriberIdOf("gone@example.com"), exp: 1 });
  await page.goto(`${app.url}/newsletter/confirm?token=${token}`);
  await expect(page.getByTestId("link-status")).toHaveText(
    "This link has expired. Subscribe again to get a new one.",
  );
  await expect(page.getByRole("button", { name: "Confirm subscription" })).toHaveCount(0);
  await expectNoViolations(page, "an expired link");
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the footer form, then the email's link and the page's button, each a native post with a 303 back", async ({
    page,
  }, testInfo) => {
    const email = `nojs.opt.in.${testInfo.workerIndex}@example.com`;
    await page.goto(`${app.url}/`);
    await footerForm(page).getByLabel("Email", { exact: true }).fill(email);
    await footerForm(page).getByRole("button", { name: "Subscribe" }).click();
    await expect(page).toHaveURL(`${app.url}/newsletter?status=confirmation-sent`);
    await expect(page.getByRole("main").getByRole("status")).toHaveText(/we have emailed you a link/);

    await page.goto(await linkInMail(email, "Confirm my subscription"));
    await page.getByRole("button", { name: "Confirm subscription" }).click();
    await expect(page).toHaveURL(`${app.url}/newsletter/confirm?status=confirmed`);
    await expect(page.getByTestId("link-status")).toHaveText(/you are subscribed/);
    expect((await stored(email)).status).toBe("confirmed");

    await page.goto(await linkInMail(email, "Unsubscribe"));
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await expect(page).toHaveURL(`${app.url}/newsletter/unsubscribe?status=unsubscribed`);
    expect((await stored(email)).status).toBe("unsubscribed");
  });
});
