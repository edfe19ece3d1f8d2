import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { Locator, Page, Request } from "@playwright/test";
import { makePng } from "../support/files";
import { blobInbox } from "./blob-inbox";
import { E2E_TURNSTILE_STATE } from "./env";
import { expect, expectNoViolations, fillBrief, test, VALID } from "./fixtures";

/**
 * Human verification in the browser (the `chromium-turnstile` project): the app runs with
 * Turnstile on and a siteverify stand-in (turnstile-server.ts). Cloudflare's widget script is
 * replaced here by a fake (fake-turnstile.js) that renders a checkbox and calls the component's
 * callback with a token the stand-in understands, so the forms' real widget component runs.
 */

const SCRIPT = "https://challenges.cloudflare.com/turnstile/v0/api.js";
const FAKE_SCRIPT = resolve("tests/e2e/fake-turnstile.js");
const MESSAGE = "Please confirm you are human, then send again.";
const UNAVAILABLE = "The check that confirms you are human could not load, so this form cannot be sent.";
/** The app's EMAIL_REPLY_TO (turnstile-server.ts), offered when the check cannot load. */
const STUDIO_EMAIL = "hello@studio.example";
const { listObjects, readObject, storedBrief } = blobInbox(E2E_TURNSTILE_STATE);

/** Every request for Cloudflare's script, answered with the fake. */
async function serveFakeWidget(page: Page): Promise<Request[]> {
  const requested: Request[] = [];
  page.on("request", (request) => {
    if (request.url().startsWith(SCRIPT)) requested.push(request);
  });
  await page.route(`${SCRIPT}*`, (route) =>
    route.fulfill({ path: FAKE_SCRIPT, contentType: "text/javascript; charset=utf-8" }),
  );
  return requested;
}

/** Every request for Cloudflare's script fails, as an ad blocker or a network without Cloudflare makes it. */
async function blockWidget(page: Page): Promise<void> {
  await page.route(`${SCRIPT}*`, (route) => route.abort());
}

/** The next tokens the fake widget issues fail (siteverify says no), in order; then they pass. */
async function nextTokensFail(page: Page, count = 1): Promise<void> {
  await page.addInitScript((outcomes) => {
    (window as unknown as { __fakeTurnstile: unknown }).__fakeTurnstile = { outcomes };
  }, new Array<string>(count).fill("fail"));
}

const contact = (page: Page) => page.locator("#contact");
const footerForm = (page: Page) => page.getByRole("contentinfo").getByRole("form", { name: "Newsletter" });
const widgetIn = (scope: Locator | Page) => scope.getByRole("checkbox", { name: "Verify you are human" });

function postsTo(page: Page, path: string): string[] {
  const bodies: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && new URL(request.url()).pathname === path) {
      bodies.push(request.postDataBuffer()?.toString("latin1") ?? "");
    }
  });
  return bodies;
}

async function storedSubscriber(email: string): Promise<Record<string, unknown> | null> {
  const hash = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  const bytes = await readObject(`newsletter/subscribers/${hash}.json`);
  return bytes === null ? null : (JSON.parse(bytes.toString("utf8")) as Record<string, unknown>);
}

async function briefsNamed(name: string): Promise<number> {
  let found = 0;
  for (const object of await listObjects("briefs/")) {
    if (!object.pathname.endsWith("/brief.json")) continue;
    const record = JSON.parse((await readObject(object.pathname))?.toString("utf8") ?? "{}") as {
      name?: string;
    };
    if (record.name === name) found++;
  }
  return found;
}

test("the widget's script is not requested on a page view, only once a visitor starts on a form", async ({
  page,
}) => {
  const requested = await serveFakeWidget(page);
  await page.goto("/");
  await page.waitForLoadState("networkidle");
  await page.mouse.wheel(0, 4000);
  await page.waitForTimeout(500);
  expect(requested).toEqual([]);
  await expect(widgetIn(page)).toHaveCount(0);

  await contact(page).getByLabel("Name").focus();
  await expect(widgetIn(contact(page))).toBeVisible();
  expect(requested).toHaveLength(1);
  // The footer form's widget waits for its own start; the script is loaded once.
  await expect(widgetIn(footerForm(page))).toHaveCount(0);
  await footerForm(page).getByLabel("Email", { exact: true }).focus();
  await expect(widgetIn(footerForm(page))).toBeVisible();
  expect(requested).toHaveLength(1);
});

test("a visitor completes the check by keyboard and sends a brief with its token", async ({ page }) => {
  await serveFakeWidget(page);
  const posts = postsTo(page, "/api/contact");
  await page.goto("/#contact");
  await fillBrief(page);
  const form = contact(page);
  await expect(form.getByText("a quick check by Cloudflare Turnstile confirms you are human")).toBeVisible();

  // The widget is drawn once Cloudflare's script has loaded (on the form's start); a Tab pressed
  // before that goes to the button, so the test waits for it as a visitor would see it.
  await expect(widgetIn(form)).toBeVisible();
  // From the consent checkbox, Tab reaches the widget, then the button.
  await form.getByLabel("You may contact me about this brief.").focus();
  await page.keyboard.press("Tab");
  await expect(widgetIn(form)).toBeFocused();
  await page.keyboard.press("Space");
  await expect(form.getByText("Success!")).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Send brief" })).toBeFocused();
  await page.keyboard.press("Enter");

  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeFocused();
  const reference = (await page.getByTestId("reference").textContent()) ?? "";
  expect(posts).toHaveLength(1);
  expect(posts[0]).toMatch(/name="cf-turnstile-response"\r\n\r\npass\.contact\./);
  const { record } = await storedBrief(reference);
  expect(record).toMatchObject({ name: VALID.name, verification: "passed", attachment: null });
});

test("sending before the check: nothing is sent, the message is next to the widget", async ({ page }) => {
  await serveFakeWidget(page);
  const posts = postsTo(page, "/api/contact");
  await page.goto("/#contact");
  await fillBrief(page);
  await page.getByRole("button", { name: "Send brief" }).click();

  const check = contact(page).getByTestId("human-check");
  await expect(check.getByText(MESSAGE)).toBeFocused();
  await expect(contact(page).getByRole("status")).toHaveText(MESSAGE);
  expect(posts).toEqual([]);
  await expectNoViolations(page, "the challenge message next to the widget");

  await widgetIn(check).check();
  await expect(check.getByText(MESSAGE)).toHaveCount(0);
  await page.getByRole("button", { name: "Send brief" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeVisible();
});

test("a refused token shows the message next to the widget and resets it; a fresh one sends", async ({
  page,
}) => {
  await nextTokensFail(page);
  await serveFakeWidget(page);
  const name = `Refused Once ${test.info().testId}`;
  await page.goto("/#contact");
  await fillBrief(page, { ...VALID, name });
  const check = contact(page).getByTestId("human-check");
  await widgetIn(check).check();

  const answer = page.waitForResponse((response) => response.url().endsWith("/api/contact"));
  await page.getByRole("button", { name: "Send brief" }).click();
  expect((await answer).status()).toBe(403);
  await expect(check.getByText(MESSAGE)).toBeVisible();
  await expect(contact(page).getByRole("status")).toHaveText(MESSAGE);
  // Reset: a fresh, unticked challenge; what was typed is kept; nothing was stored.
  await expect(widgetIn(check)).not.toBeChecked();
  await expect(widgetIn(check)).toBeEnabled();
  expect(
    await page.evaluate(
      () => (window as unknown as { __fakeTurnstile: { resets: number } }).__fakeTurnstile.resets,
    ),
  ).toBe(1);
  await expect(contact(page).getByLabel("Name")).toHaveValue(name);
  expect(await briefsNamed(name)).toBe(0);

  await widgetIn(check).check();
  await page.getByRole("button", { name: "Send brief" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeVisible();
  expect(await briefsNamed(name)).toBe(1);
});

test("a brief with a file: one token for the upload ahead of the form, another for the brief", async ({
  page,
}) => {
  await serveFakeWidget(page);
  const uploads = postsTo(page, "/api/contact/upload");
  const posts = postsTo(page, "/api/contact");
  const png = Buffer.from(makePng(24, 24));
  await page.goto("/#contact");
  await fillBrief(page);
  await contact(page)
    .getByLabel("Attach a brief")
    .setInputFiles({ name: "diagram.png", mimeType: "image/png", buffer: png });
  const check = contact(page).getByTestId("human-check");
  await widgetIn(check).check();
  await page.getByRole("button", { name: "Send brief" }).click();

  // The upload's token is spent: the widget is rendered anew for the brief, and the form waits.
  await expect(widgetIn(check)).not.toBeChecked();
  expect(uploads).toHaveLength(1);
  expect(JSON.parse(uploads[0] ?? "{}")).toMatchObject({
    "cf-turnstile-response": expect.stringMatching(/^pass\.upload\./),
  });
  expect(posts).toEqual([]);
  // Ticking it sends the brief at once, and the thank-you replaces the form, widget included: a
  // click, not check(), which would go on waiting to see a box that may be gone already ticked.
  await widgetIn(check).click();

  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeVisible();
  expect(posts).toHaveLength(1);
  expect(posts[0]).toMatch(/name="cf-turnstile-response"\r\n\r\npass\.contact\./);
  const reference = (await page.getByTestId("reference").textContent()) ?? "";
  const { folder, record } = await storedBrief(reference);
  expect(record).toMatchObject({ verification: "passed", attachment: { contentType: "image/png" } });
  expect((await readObject(`${folder}/attachment.png`))?.equals(png)).toBe(true);
});

test("a visitor subscribes from the footer with the widget; a refused token is reset", async ({
  page,
}, testInfo) => {
  await nextTokensFail(page);
  await serveFakeWidget(page);
  const email = `checked.${testInfo.testId}@example.com`;
  await page.goto("/");
  const form = footerForm(page);
  await form.getByLabel("Email", { exact: true }).fill(email);
  await form.getByLabel("Research").check();
  const check = form.getByTestId("human-check");
  await widgetIn(check).check();
  await form.getByRole("button", { name: "Subscribe" }).click();
  await expect(form.getByRole("status")).toHaveText(MESSAGE);
  await expect(check.getByText(MESSAGE)).toBeVisible();
  await expect(widgetIn(check)).not.toBeChecked();
  expect(await storedSubscriber(email)).toBeNull();
  await expectNoViolations(page, "the newsletter form's challenge message");

  await widgetIn(check).check();
  await form.getByRole("button", { name: "Subscribe" }).click();
  await expect(form.getByRole("status")).toHaveText(
    "You are subscribed. The next issue will be in your inbox.",
  );
  expect(await storedSubscriber(email)).toMatchObject({
    email,
    topics: ["Research"],
    verification: "passed",
  });
});

test("when Cloudflare's script cannot load, both forms say so, offer the studio's address, and send nothing", async ({
  page,
}, testInfo) => {
  await blockWidget(page);
  const briefs = postsTo(page, "/api/contact");
  const subscriptions = postsTo(page, "/api/newsletter");
  await page.goto("/#contact");
  await fillBrief(page);

  const check = contact(page).getByTestId("human-check");
  const note = check.getByText("could not load");
  await expect(note).toBeVisible();
  await expect(check.getByRole("link", { name: STUDIO_EMAIL })).toHaveAttribute(
    "href",
    `mailto:${STUDIO_EMAIL}`,
  );
  await expectNoViolations(page, "the contact form's note that the check cannot load");

  // Not stuck waiting for a token that cannot come: sending says why at once, and leads to the note.
  // (A form that waited for the token would wait its 60 s; 10 s leaves room for a loaded machine.)
  await page.getByRole("button", { name: "Send brief" }).click();
  await expect(contact(page).getByRole("status")).toHaveText(UNAVAILABLE, { timeout: 10_000 });
  await expect(check.getByRole("alert")).toBeFocused();
  await expect(check.getByText(MESSAGE)).toHaveCount(0);
  expect(briefs).toEqual([]);

  // The footer form, started after the failure, knows at once; its script is not asked for again.
  const footer = footerForm(page);
  await footer.getByLabel("Email", { exact: true }).fill(`blocked.${testInfo.testId}@example.com`);
  await expect(footer.getByRole("link", { name: STUDIO_EMAIL })).toHaveAttribute(
    "href",
    `mailto:${STUDIO_EMAIL}`,
  );
  await footer.getByRole("button", { name: "Subscribe" }).click();
  await expect(footer.getByRole("status")).toHaveText(UNAVAILABLE, { timeout: 10_000 });
  expect(subscriptions).toEqual([]);
  await expectNoViolations(page, "both forms' notes that the check cannot load");
});

test("the pages have no axe violations with both widgets, and where a no-JavaScript post comes back", async ({
  page,
}) => {
  await serveFakeWidget(page);
  await page.goto("/");
  await expectNoViolations(page, "the forms before the widgets load");
  await contact(page).getByLabel("Name").focus();
  await footerForm(page).getByLabel("Email", { exact: true }).focus();
  await expect(widgetIn(page)).toHaveCount(2);
  await expectNoViolations(page, "both widgets");

  await page.goto("/contact?error=challenge_failed#contact");
  await expect(contact(page).getByRole("status")).toHaveText(MESSAGE);
  await expectNoViolations(page, "the landing page after a no-JavaScript post");
  await page.goto("/newsletter?error=challenge_failed");
  await expect(page.getByRole("main").getByRole("status")).toHaveText(MESSAGE);
  await expectNoViolations(page, "the newsletter page after a no-JavaScript post");
});

test("on a phone the widgets fit the screen; screenshots of both forms with them", async ({
  page,
}, testInfo) => {
  await serveFakeWidget(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/#contact");
  await fillBrief(page);
  await footerForm(page).getByLabel("Email", { exact: true }).focus();
  await expect(widgetIn(page)).toHaveCount(2);
  // Nothing is wider than the phone's screen, the widgets included.
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);
  for (const [name, scope] of [
    ["contact-widget-mobile", contact(page)],
    ["newsletter-widget-mobile", footerForm(page)],
  ] as const) {
    const path = testInfo.outputPath(`${name}.png`);
    await scope.screenshot({ path });
    await testInfo.attach(name, { path, contentType: "image/png" });
  }
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the contact form comes back with the message, nothing typed in the URL, nothing stored", async ({
    page,
  }) => {
    const name = `No Script ${test.info().testId}`;
    await page.goto("/#contact");
    await fillBrief(page, { ...VALID, name });
    await page.getByRole("button", { name: "Send brief" }).click();

    await expect(page).toHaveURL(/\/contact\?error=challenge_failed#contact$/);
    await expect(contact(page).getByRole("status")).toHaveText(MESSAGE);
    // A <noscript> note (Chromium with scripts switched off by the test still parses it as text).
    expect(await page.content()).toContain("This check needs JavaScript, which is off in this browser");
    expect(await briefsNamed(name)).toBe(0);
  });

  test("the footer form comes back with the message on the newsletter page", async ({ page }, testInfo) => {
    const email = `nojs.${testInfo.testId}@example.com`;
    await page.goto("/");
    await footerForm(page).getByLabel("Email", { exact: true }).fill(email);
    await footerForm(page).getByRole("button", { name: "Subscribe" }).click();
    await expect(page).toHaveURL(/\/newsletter\?error=challenge_failed$/);
    await expect(page.getByRole("main").getByRole("status")).toHaveText(MESSAGE);
    expect(await page.content()).toContain("This check needs JavaScript, which is off in this browser");
    expect(await storedSubscriber(email)).toBeNull();
  });
});
