import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { E2E_INBOX } from "./env";
import { expect, test } from "./fixtures";

function footerForm(page: Page) {
  return page.getByRole("contentinfo").getByRole("form", { name: "Newsletter" });
}

async function storedSubscriber(email: string): Promise<{ email: string; topics: string[] }> {
  const hash = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  const path = join(E2E_INBOX, "newsletter", "subscribers", `${hash}.json`);
  return JSON.parse(await readFile(path, "utf8")) as { email: string; topics: string[] };
}

test("subscribing from the footer, then again: subscribed, then already subscribed", async ({
  page,
}, testInfo) => {
  const email = `Reader.${testInfo.testId}@Example.com`;
  await page.goto("/");
  const form = footerForm(page);
  await form.getByLabel("Email", { exact: true }).fill(email);
  await form.getByLabel("AI", { exact: true }).check();
  await form.getByLabel("Quantum").check();
  await form.getByRole("button", { name: "Subscribe" }).click();
  await expect(form.getByRole("status")).toHaveText(
    "You are subscribed. The next issue will be in your inbox.",
  );
  expect(await storedSubscriber(email)).toMatchObject({ email, topics: ["AI", "Quantum"] });

  await page.reload();
  await footerForm(page).getByLabel("Email", { exact: true }).fill(email.toLowerCase());
  await footerForm(page).getByLabel("Research").check();
  await footerForm(page).getByRole("button", { name: "Subscribe" }).click();
  await expect(footerForm(page).getByRole("status")).toHaveText(
    "You were already subscribed. We have added any new topics you chose.",
  );
  expect((await storedSubscriber(email)).topics).toEqual(["AI", "Quantum", "Research"]);
});

test("an invalid address is caught in the browser, next to the field", async ({ page }) => {
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });
  await page.goto("/");
  const form = footerForm(page);
  await form.getByLabel("Email", { exact: true }).fill("reader@");
  await form.getByRole("button", { name: "Subscribe" }).click();
  const input = form.getByLabel("Email", { exact: true });
  await expect(input).toBeFocused();
  await expect(input).toHaveAttribute("aria-invalid", "true");
  await expect(input).toHaveAccessibleDescription(/valid email address/);
  expect(posts).toEqual([]);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the footer form posts natively and shows the outcome on the newsletter page", async ({
    page,
  }, testInfo) => {
    const email = `nojs.${testInfo.testId}@example.com`;
    await page.goto("/");
    await footerForm(page).getByLabel("Email", { exact: true }).fill(email);
    await footerForm(page).getByLabel("Software").check();
    await footerForm(page).getByRole("button", { name: "Subscribe" }).click();
    await expect(page).toHaveURL(/\/newsletter\?status=subscribed$/);
    await expect(page.getByRole("main").getByRole("status")).toHaveText(/You are subscribed/);
    expect((await storedSubscriber(email)).topics).toEqual(["Software"]);

    await page.goto("/");
    await footerForm(page).getByLabel("Email", { exact: true }).fill("not an address");
    await footerForm(page).getByRole("button", { name: "Subscribe" }).click();
    await expect(page).toHaveURL(/\/newsletter\?error=validation_failed&invalid=email$/);
    await expect(page.getByRole("main").getByLabel("Email", { exact: true })).toHaveAttribute(
      "aria-invalid",
      "true",
    );
  });
});
