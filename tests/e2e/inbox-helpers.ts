import { copyFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Locator, Page, TestInfo } from "@playwright/test";
import { signInLink } from "../support/ops-web";
import type { SmtpTestServer } from "../support/smtp";
import { expect, expectNoViolations } from "./fixtures";

/**
 * Console errors, page errors and CSP violations from here on, for a test to find empty at its end
 * (Chromium reports a refused script as a console error too; the listener names the directive).
 */
export async function watchForProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console on ${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error on ${page.url()}: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return problems;
}

/** An inbox page's policy: its scripts by this answer's nonce, never `'unsafe-inline'`. */
export function expectNoncePolicy(policy: string | undefined): void {
  const scripts = (policy ?? "").split(";").find((directive) => directive.trim().startsWith("script-src"));
  expect(scripts).toMatch(
    /^\s*script-src 'self' 'nonce-[A-Za-z0-9+/=]{22,}' https:\/\/challenges\.cloudflare\.com$/,
  );
}

/** Presses Tab until `target` has the focus, as a keyboard user would; fails if it never does. */
export async function tabTo(page: Page, target: Locator, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${target.toString()}`);
}

/** A picture of the page for the test's report; with DOCS_SCREENSHOTS=1 also `docs/<name>.png`, the docs' own. */
export async function docsScreenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: false });
  await testInfo.attach(name, { path, contentType: "image/png" });
  if (process.env.DOCS_SCREENSHOTS === "1") await copyFile(path, resolve("docs", `${name}.png`));
}

/** axe finds nothing on an inbox page (once its title, which Next streams after a client-side navigation, is there). */
export async function expectNoInboxViolations(page: Page, state: string): Promise<void> {
  await expect(page).toHaveTitle(/Inbox/);
  await expectNoViolations(page, state);
}

/**
 * Signs in from the sign-in page by keyboard: the address, Enter, the link from the `count`-th
 * email to it, and the confirmation page's button.
 */
export async function signInByKeyboard(
  page: Page,
  siteUrl: string,
  smtp: SmtpTestServer,
  email: string,
  count = 1,
): Promise<void> {
  await page.goto(`${siteUrl}/inbox/sign-in`);
  await tabTo(page, page.getByLabel("Email"));
  await page.keyboard.type(email);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status")).toContainText("a link is on its way");
  await page.goto(await signInLink(smtp, email, count));
  await tabTo(page, page.getByRole("button", { name: "Sign in" }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/inbox$/);
}
