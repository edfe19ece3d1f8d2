import { expect, fillBrief, readStoredBrief, test, VALID } from "./fixtures";

/**
 * Where a lead came from, as a visitor's browser sends it: the visit's first `utm_*` parameters and
 * external referrer, kept in `sessionStorage` from the page it lands on, and the page the form is
 * sent from; read back from the stored `brief.json`.
 */

async function sendBrief(page: import("@playwright/test").Page): Promise<string> {
  await fillBrief(page);
  await page.locator("#contact").getByRole("button", { name: "Send brief" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeVisible();
  return (await page.getByTestId("reference").textContent()) ?? "";
}

test("utm_* of the landing page go with a brief sent later from /contact", async ({ page }) => {
  await page.goto("/?utm_source=x&utm_medium=email&utm_campaign=spring");
  // The landing page notes the visit's parameters before the visitor goes on.
  await expect
    .poll(() => page.evaluate(() => window.sessionStorage.getItem("studio-intake:visit")))
    .toContain('"source":"x"');
  await page.goto("/contact?utm_source=later");
  const reference = await sendBrief(page);

  expect((await readStoredBrief(reference)).attribution).toEqual({
    page: "/contact?utm_source=later",
    // First touch: the later page's utm_source does not replace the landing's.
    utm: { source: "x", medium: "email", campaign: "spring" },
  });
});

test("an external referrer is kept for the visit; moving between our own pages is not one", async ({
  page,
}) => {
  await page.goto("/", { referer: "https://news.example/post?id=7" });
  await page.goto("/contact");
  const reference = await sendBrief(page);
  expect((await readStoredBrief(reference)).attribution).toEqual({
    page: "/contact",
    referrer: "https://news.example/post?id=7",
  });
});

test("a visit with nothing to say sends the page alone", async ({ page }) => {
  await page.goto("/#contact");
  const reference = await sendBrief(page);
  expect((await readStoredBrief(reference)).attribution).toEqual({ page: "/" });
});

test("the footer's newsletter form sends the page it is on", async ({ page }) => {
  await page.goto("/thank-you?reference=K7QM-3XD9-PTWA-84HC");
  const footer = page.getByRole("contentinfo").getByRole("form", { name: "Newsletter" });
  await footer.getByLabel("Email", { exact: true }).fill(`attribution-${Date.now()}@example.com`);
  const request = page.waitForRequest((sent) => sent.url().endsWith("/api/newsletter"));
  await footer.getByRole("button", { name: "Subscribe" }).click();
  expect((await request).postDataJSON()).toMatchObject({ page: "/thank-you?reference=K7QM-3XD9-PTWA-84HC" });
  await expect(footer.getByTestId("newsletter-status")).toContainText("subscribed");
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the form sends the page it was rendered at, and nothing else", async ({ page }) => {
    await page.goto("/?utm_source=x#contact");
    await fillBrief(page);
    await page.getByRole("button", { name: "Send brief" }).click();
    await expect(page).toHaveURL(/\/thank-you\?reference=/);
    const reference = (await page.getByTestId("reference").textContent()) ?? "";
    expect(await readStoredBrief(reference)).toMatchObject({ name: VALID.name, attribution: { page: "/" } });
  });
});
