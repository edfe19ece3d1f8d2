import type { Page, Route } from "@playwright/test";
import { expect, fillBrief, readStoredBrief, recordScripts, scriptsCarrying, test, VALID } from "./fixtures";

/**
 * The landing page loads the forms' code only when a visitor comes near a form: a page view at the
 * top of `/` runs the framework and the visit's note, never a form's schemas, Turnstile's component
 * or the form settings. What a visitor types while the code is on its way stays, and a form sent
 * before its code has run is sent by that code once it runs (not natively).
 */

/** Text only the forms' code carries: zod's error class, the contact form's sending line, Turnstile's origin. */
const FORM_CODE = ["$ZodError", "Sending your brief", "challenges.cloudflare.com"];

/**
 * Holds every script the page asks for from now on until `release` is called: the forms' code
 * arrives only when the test says so.
 */
async function holdLaterScripts(page: Page): Promise<{ held: () => number; release: () => void }> {
  const waiting: Route[] = [];
  let released = false;
  await page.route("**/_next/static/chunks/*.js", async (route) => {
    if (released) return route.continue();
    waiting.push(route);
  });
  return {
    held: () => waiting.length,
    release: () => {
      released = true;
      for (const route of waiting.splice(0)) void route.continue();
    },
  };
}

test("a page view at the top of / loads no form code and asks for no form settings", async ({ page }) => {
  const scripts = recordScripts(page);
  const settings: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/api/form-settings")) settings.push(request.url());
  });
  await page.goto("/?utm_source=deferral");
  await page.waitForLoadState("networkidle");
  // The page's own code has run: the visit's note is taken at load.
  await expect
    .poll(() => page.evaluate(() => window.sessionStorage.getItem("studio-intake:visit")))
    .toContain('"source":"deferral"');
  expect(scripts.size).toBeGreaterThan(0);
  expect(await scriptsCarrying(scripts, FORM_CODE)).toEqual([]);
  expect(settings).toEqual([]);

  // Scrolled to the contact form, its code loads.
  await page.locator("#contact").scrollIntoViewIfNeeded();
  await expect.poll(async () => (await scriptsCarrying(scripts, FORM_CODE)).length).toBeGreaterThan(0);
});

test("what a visitor types before the form's code arrives is kept, and the form then checks it", async ({
  page,
}) => {
  await page.goto("/");
  await page.waitForLoadState("networkidle");
  const scripts = await holdLaterScripts(page);
  const name = page.locator("#contact").getByLabel("Name");
  await name.fill("A");
  await expect.poll(scripts.held).toBeGreaterThan(0);
  await expect(name).toBeFocused();

  scripts.release();
  // The form's own check (the shared schema) answers, without a request: its code has run.
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });
  await expect(async () => {
    await page.locator("#contact").getByRole("button", { name: "Send brief" }).click();
    await expect(name).toHaveAccessibleDescription(/at least 2 characters/, { timeout: 1000 });
  }).toPass();
  expect(posts).toEqual([]);
  await expect(name).toHaveValue("A");
  await expect(name).toBeFocused();
});

test("a brief sent before the form's code arrives is sent by that code once it runs", async ({ page }) => {
  await page.goto("/");
  await page.waitForLoadState("networkidle");
  const scripts = await holdLaterScripts(page);
  await fillBrief(page);
  await page.locator("#contact").getByRole("button", { name: "Send brief" }).click();
  await expect.poll(scripts.held).toBeGreaterThan(0);
  // Held, not posted natively: still on the landing page.
  await page.waitForTimeout(300);
  expect(new URL(page.url()).pathname).toBe("/");

  scripts.release();
  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeFocused();
  expect(new URL(page.url()).pathname).toBe("/");
  const reference = (await page.getByTestId("reference").textContent()) ?? "";
  expect(await readStoredBrief(reference)).toMatchObject({ name: VALID.name, attribution: { page: "/" } });
});
