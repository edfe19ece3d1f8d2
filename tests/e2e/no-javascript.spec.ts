import { expect, fillBrief, readStoredBrief, test, VALID } from "./fixtures";

test.use({ javaScriptEnabled: false });

test("without JavaScript the form posts natively and lands on the thank-you page", async ({ page }) => {
  await page.goto("/#contact");
  await fillBrief(page);
  await page.getByRole("button", { name: "Send brief" }).click();

  await expect(page).toHaveURL(/\/thank-you\?reference=/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Thank you, your brief is with us.");
  const reference = (await page.getByTestId("reference").textContent()) ?? "";
  expect(await readStoredBrief(reference)).toMatchObject({ name: VALID.name, attachment: null });
});

test("without JavaScript an invalid brief comes back to the form with the errors", async ({ page }) => {
  await page.goto("/#contact");
  await fillBrief(page, { ...VALID, email: "nope" });
  await page.getByRole("button", { name: "Send brief" }).click();

  await expect(page).toHaveURL(/\/contact\?error=validation_failed&invalid=email#contact$/);
  const email = page.locator("#contact").getByLabel("Email");
  await expect(email).toHaveAttribute("aria-invalid", "true");
  await expect(email).toHaveAccessibleDescription(/Check this field/);
  await expect(page.locator("#contact").getByRole("status")).toContainText("Some fields need attention");
});
