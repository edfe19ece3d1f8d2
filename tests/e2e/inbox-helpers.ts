import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page } from "@playwright/test";
import { signInLink } from "../support/ops-web";
import type { SmtpTestServer } from "../support/smtp";
import { expect } from "./fixtures";

/** Presses Tab until `target` has the focus, as a keyboard user would; fails if it never does. */
export async function tabTo(page: Page, target: Locator, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${target.toString()}`);
}

/** axe finds nothing on an inbox page (once its title, which Next streams after a client-side navigation, is there). */
export async function expectNoViolations(page: Page, state: string): Promise<void> {
  await expect(page).toHaveTitle(/Inbox/);
  const results = await new AxeBuilder({ page }).analyze();
  const summary = results.violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target).join(", ")})`,
  );
  expect(summary, `axe violations on ${state}`).toEqual([]);
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
