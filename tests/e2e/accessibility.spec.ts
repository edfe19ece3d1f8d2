import type { Page, TestInfo } from "@playwright/test";
import { expect, expectNoViolations, fillBrief, test } from "./fixtures";

async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: "image/png" });
}

test("the landing page has no axe violations in any state of the contact form", async ({ page }) => {
  await page.goto("/");
  await expectNoViolations(page, "the empty form");

  await page.getByRole("button", { name: "Send brief" }).click();
  await expect(page.locator("#contact").getByLabel("Name")).toBeFocused();
  await expectNoViolations(page, "client-side errors");

  await page.goto("/contact?error=rate_limited&retry=120#contact");
  await expect(page.locator("#contact").getByRole("status")).toContainText("try again in 2 minutes");
  await expectNoViolations(page, "a server error shown after a no-JavaScript post");

  await page.goto("/#contact");
  await fillBrief(page);
  await page.getByRole("button", { name: "Send brief" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeVisible();
  await expectNoViolations(page, "the success state");
});

test("the landing page has no axe violations in any state of the newsletter form", async ({
  page,
}, testInfo) => {
  await page.goto("/");
  const form = page.getByRole("contentinfo").getByRole("form", { name: "Newsletter" });
  await form.getByRole("button", { name: "Subscribe" }).click();
  await expect(form.getByLabel("Email", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expectNoViolations(page, "an invalid address");

  await form.getByLabel("Email", { exact: true }).fill(`axe.${testInfo.testId}@example.com`);
  await form.getByRole("button", { name: "Subscribe" }).click();
  await expect(form.getByRole("status")).toContainText("You are subscribed");
  await expectNoViolations(page, "a subscription");

  await page.goto("/newsletter?error=rate_limited&retry=30");
  await expectNoViolations(page, "the newsletter page with an error");
});

test("screenshots of the landing page at desktop and mobile width", async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/");
  await screenshot(page, testInfo, "landing-desktop");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  // Nothing is wider than the phone's screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshot(page, testInfo, "landing-mobile");
});
