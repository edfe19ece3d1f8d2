import type { Locator, Page } from "@playwright/test";
import { FilesystemStore } from "@/lib/store/filesystem";
import { readJson, storeBrief } from "../support/briefs";
import { LINK_SECRET } from "../support/opt-in";
import { forgeSignInToken } from "../support/ops-web";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { expect, test } from "./fixtures";
import { docsScreenshot, expectNoInboxViolations, tabTo, watchForProblems } from "./inbox-helpers";

/**
 * The inbox as a person uses it, on a laptop (1280 px) and a phone (375 px), in Chromium by its
 * accessible names: the skip link lands on the brief and its controls come first, every status has
 * a key, previous and next brief; on a phone the header is one row, the filters fold, the audit
 * log stacks, addresses stay whole and nothing is wider than the screen; plain words (the human
 * check, why spam was caught, counts, signed out); times in the reader's zone (the browser is put
 * in Europe/Berlin); "Retry now" for a failed channel and "Send again", confirmed first, for a
 * delivered one, each really sent (a webhook receiver, an SMTP server). axe finds nothing anywhere.
 * With DOCS_SCREENSHOTS=1 the list, a brief and the audit log at both widths are written to docs/.
 */

test.describe.configure({ mode: "serial", timeout: 90_000 });
test.use({ timezoneId: "Europe/Berlin", locale: "en-GB" });

const OPS = "ops@studio.example";
const WIDTHS = [
  { name: "desktop", width: 1280, height: 860 },
  { name: "phone", width: 375, height: 812 },
] as const;
let smtp: SmtpTestServer;
let receiver: WebhookReceiver;
let app: AppServer;
let store: FilesystemStore;
let lead: Awaited<ReturnType<typeof storeBrief>>;
/** One brief per width whose webhook failed and whose email was delivered. */
const failing: Record<string, Awaited<ReturnType<typeof storeBrief>>> = {};

test.beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startWebhookReceiver();
  const dir = await tempDir("e2e-inbox-use-");
  store = new FilesystemStore(dir);
  const names = ["Ada Lovelace", "Alan Kay", "Katherine Johnson", "Dennis Ritchie"];
  const companies = ["Remington Rand Corporation", "Bell Telephone Laboratories", "Xerox PARC", null];
  for (let day = 1; day <= 12; day++) {
    const at = `2026-11-${String(day).padStart(2, "0")}T10:00:00.000Z`;
    await storeBrief(store, {
      receivedAt: at,
      fields: {
        name: names[day % 4] ?? "Ada",
        email: `${(names[day % 4] ?? "ada").split(" ")[0]?.toLowerCase()}.${day}@clients.example`,
        company: companies[day % 4] ?? null,
        verification: day % 2 === 0 ? "passed" : "off",
      },
      delivery: { email: { ok: true, at: at.replace("00.000Z", "01.000Z") } },
    });
  }
  lead = await storeBrief(store, {
    receivedAt: "2026-11-20T09:30:00.000Z",
    fields: {
      name: "Grace Hopper",
      email: "grace.brewster.murray.hopper@navy-laboratories.example",
      company: "United States Navy Computer Laboratories",
      verification: "off",
    },
    delivery: {
      webhook: { ok: false, at: "2026-11-20T09:30:02.000Z", error: "answered HTTP 500" },
      email: { ok: true, at: "2026-11-20T09:30:01.000Z" },
    },
  });
  await storeBrief(store, {
    receivedAt: "2026-11-21T08:00:00.000Z",
    fields: { name: "Hedy Lamarr", email: "hedy@frequency.example", company: null },
    delivery: { email: { ok: true, at: "2026-11-21T08:00:01.000Z" } },
  });
  for (const [index, size] of WIDTHS.entries()) {
    failing[size.name] = await storeBrief(store, {
      receivedAt: `2026-10-0${index + 1}T08:00:00.000Z`,
      fields: { name: `Margaret Hamilton ${size.name}`, email: `margaret.${size.name}@apollo.example` },
      delivery: {
        webhook: { ok: false, at: `2026-10-0${index + 1}T08:00:02.000Z`, error: "answered HTTP 500" },
        email: { ok: true, at: `2026-10-0${index + 1}T08:00:01.000Z` },
      },
    });
  }
  await storeBrief(store, {
    receivedAt: "2026-11-18T08:00:00.000Z",
    folder: "spam",
    fields: { name: "Casino Bot", email: "win@casino.example", company: null },
  });
  app = await startApp({
    INBOX_DIR: dir,
    OPS_EMAILS: OPS,
    LINK_SIGNING_SECRET: LINK_SECRET,
    SMTP_URL: smtp.url,
    EMAIL_FROM: "Northwind Studio <intake@studio.example>",
    EMAIL_TO: "leads@studio.example",
    WEBHOOK_URL: `${receiver.url}/intake`,
    IP_HASH_SALT: "e2e",
  });
});

test.afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await smtp?.stop();
});

/** A session without the sign-in journey (inbox.spec.ts walks that): this file is about what follows. */
async function signedIn(page: Page): Promise<void> {
  // The page's own request context: the session cookie it is answered with is the browser's.
  const answer = await page.request.post(`${app.url}/api/ops/session`, {
    data: { token: forgeSignInToken(app.url, OPS, 600) },
    headers: { origin: app.url },
  });
  expect(answer.status()).toBe(200);
}

async function noWiderThanTheScreen(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, "sideways scrolling").toBeLessThanOrEqual(0);
}

async function height(locator: Locator): Promise<number> {
  return (await locator.boundingBox())?.height ?? Number.POSITIVE_INFINITY;
}

const briefUrl = (reference: string) => `${app.url}/inbox/${reference}`;

/** A `<details>` disclosure's `<summary>`, by its words (Playwright gives summary no role). */
const disclosure = (page: Page, words: string) => page.locator("summary", { hasText: words });

for (const size of WIDTHS) {
  test(`${size.name}: the skip link lands on the brief, its controls come first, and previous/next step through the list`, async ({
    page,
  }, testInfo) => {
    const problems = await watchForProblems(page);
    await page.setViewportSize(size);
    await signedIn(page);
    await page.goto(briefUrl(lead.record.reference));
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Grace Hopper");
    await expectNoInboxViolations(page, `a brief (${size.name})`);
    await noWiderThanTheScreen(page);
    await docsScreenshot(page, testInfo, size.name === "phone" ? "inbox-brief-phone" : "inbox-brief");

    // Skip link first; it moves the focus into the brief itself (its heading, past the steps
    // through the list), so the brief's first control is the second Tab stop of the page.
    const brief = page.getByRole("article", { name: /Grace Hopper/ });
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
    await page.keyboard.press("Enter");
    expect(await brief.evaluate((article) => article.contains(document.activeElement))).toBe(true);
    await expect(page.locator(":focus")).toContainText("Grace Hopper");
    const steps: string[] = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press("Tab");
      steps.push(await page.evaluate(() => document.activeElement?.textContent?.trim() ?? ""));
    }
    expect(steps).toEqual(["New", "Handled", "Archived"]);
    await tabTo(page, page.getByRole("button", { name: "Retry now (webhook)" }), 12);
    await tabTo(page, page.getByLabel("Add a note"), 6);
    // The list it was opened from comes after the whole brief, in the Tab order and in the page's
    // (a screen reader's reading) order, wherever a wide screen shows it.
    const list = page.getByRole("navigation", { name: "Briefs" });
    await tabTo(page, list.getByRole("link").first(), 4);
    expect(
      await brief.evaluate(
        (article, nav) => Boolean(article.compareDocumentPosition(nav!) & Node.DOCUMENT_POSITION_FOLLOWING),
        await list.elementHandle(),
      ),
    ).toBe(true);
    // Back to the brief's steps with Shift+Tab from its heading: still there, just not in the way.
    await page.getByRole("link", { name: "Skip to content" }).focus();
    await page.keyboard.press("Enter");
    await page.keyboard.press("Shift+Tab");
    await expect(page.getByRole("link", { name: "Next brief" })).toBeFocused();

    // Words: the human check, the address whole on one line, the time in the reader's zone.
    await expect(page.getByText("Not checked: human verification is off")).toBeVisible();
    const address = page.getByRole("link", { name: lead.record.email, exact: true });
    // Whole: the name and the domain each on one line (a phone may put the break before the @).
    const lines = await address.evaluate((element) =>
      [...element.querySelectorAll("span span")].map((part) => part.getClientRects().length),
    );
    expect(lines).toEqual([1, 1]);
    await expect(address).toHaveText(lead.record.email);
    const received = page.locator("time[datetime='2026-11-20T09:30:00.000Z']").first();
    await expect(received).toHaveText("2026-11-20 10:30:00 CET");
    await expect(received).toHaveAttribute(
      "title",
      /Central European Standard Time \(2026-11-20 09:30:00 UTC\)/,
    );

    // n and p follow the brief's next and previous links; j/k and the status keys work here too.
    const next = await page.getByRole("link", { name: "Next brief" }).getAttribute("href");
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("n");
    await expect(page).toHaveURL(`${app.url}${next}`);
    await expect(page.getByRole("heading", { level: 1 })).not.toContainText("Grace Hopper");
    await page.keyboard.press("p");
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Grace Hopper");
    for (const [key, status, button] of [
      ["a", "archived", "Archived"],
      ["u", "new", "New"],
      ["e", "handled", "Handled"],
    ] as const) {
      await page.keyboard.press(key);
      await expect(page.getByRole("button", { name: button, exact: true })).toHaveAttribute(
        "aria-pressed",
        "true",
      );
      const state = await readJson<{ status: string }>(store, `${lead.folder}/state.json`);
      expect(state?.status).toBe(status);
    }
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    for (const key of ["u", "e", "a", "n / p", "j / k"])
      await expect(help.getByText(key, { exact: true })).toBeVisible();
    await page.keyboard.press("Escape");
    expect(problems).toEqual([]);
  });

  test(`${size.name}: the list comes first, with addresses, zones and plural counts; the header is one row`, async ({
    page,
  }, testInfo) => {
    const problems = await watchForProblems(page);
    await page.setViewportSize(size);
    await signedIn(page);
    await page.goto(`${app.url}/inbox`);
    await expect(page.getByRole("heading", { name: "Briefs" })).toBeVisible();
    await expectNoInboxViolations(page, `the list (${size.name})`);
    await noWiderThanTheScreen(page);
    await docsScreenshot(page, testInfo, size.name === "phone" ? "inbox-list-phone" : "inbox-list");

    // The header: one row, well under a sixth of a phone's height.
    expect(await height(page.getByRole("banner"))).toBeLessThan(64);
    // The filters are folded: the first brief is near the top. The search is in sight on a
    // laptop, folded with the filters on a phone.
    const filters = page.locator("details[data-filters]");
    await expect(filters).not.toHaveAttribute("open");
    const search = page.getByRole("searchbox", { name: "Search" });
    await expect(page.getByLabel("Status", { exact: true })).toBeHidden();
    if (size.name === "phone") await expect(search).toBeHidden();
    else await expect(search).toBeVisible();
    const firstRow = page.locator("a[data-brief-row]").first();
    expect((await firstRow.boundingBox())?.y ?? 999).toBeLessThan(size.name === "phone" ? 260 : 240);
    // Each row: the sender's address and the time with its zone; no company cut off; what ops
    // triage on first (the project type and budget; the timeline where there is room).
    const leadRow = page.getByRole("link", { name: /Grace Hopper/ });
    await expect(leadRow).toHaveAttribute("data-brief-row", lead.record.reference);
    await expect(leadRow.getByText("AI system", { exact: true })).toBeVisible();
    await expect(leadRow.getByText("$50k-$100k", { exact: true })).toBeVisible();
    const timeline = leadRow.getByText("3-6 months", { exact: true });
    if (size.name === "phone") await expect(timeline).toBeHidden();
    else await expect(timeline).toBeVisible();
    await expect(leadRow).toContainText("grace.brewster.murray.hopper@navy-laboratories.example");
    await expect(leadRow).toContainText("United States Navy Computer Laboratories");
    await expect(leadRow.locator("time")).toHaveText("2026-11-20 10:30 CET");
    await expect(leadRow.locator("time")).toHaveAttribute("datetime", "2026-11-20T09:30:00.000Z");
    const nameLine = leadRow.getByText("Grace Hopper");
    expect(await nameLine.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    await expect(page.getByText("16 briefs", { exact: true })).toBeVisible();

    // `/` unfolds the filters and goes to the search; a search that finds one says so in the
    // singular, and stays in sight with the other filters folded again.
    await page.keyboard.press("/");
    await expect(search).toBeFocused();
    await page.keyboard.type("navy");
    await page.keyboard.press("Enter");
    await expect(page.getByText("1 brief matches", { exact: true })).toBeVisible();
    await expect(search).toBeVisible();
    await expect(search).toHaveValue("navy");
    await expect(filters).not.toHaveAttribute("open");
    await expectNoInboxViolations(page, `the list searched (${size.name})`);
    // The folded filters keep the search, and the search keeps them: one form.
    await disclosure(page, "Filters").click();
    await expect(page.getByLabel("From")).toHaveAttribute("placeholder", "YYYY-MM-DD");
    // (The lead brief is handled by now: the test before this one marked it with `e`.)
    await page.getByLabel("Status", { exact: true }).selectOption("handled");
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await expect(page).toHaveURL(/[?&]status=handled(&|$)/);
    await expect(page).toHaveURL(/[?&]q=navy(&|$)/);
    await expect(filters).toHaveAttribute("open");
    await expect(page.getByText("1 brief matches", { exact: true })).toBeVisible();
    await expectNoInboxViolations(page, `the list filtered (${size.name})`);

    // The header's sections: inline on a laptop, behind "Menu" on a phone, the same links.
    if (size.name === "phone") {
      await expect(page.getByRole("link", { name: "Audit log" })).toBeHidden();
      await tabTo(page, disclosure(page, "Menu"), 10);
      await page.keyboard.press("Enter");
    }
    await tabTo(page, page.getByRole("link", { name: "Spam" }), 12);
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { name: "Spam" })).toBeVisible();

    // Spam: no status filter, no status badges, why each was caught, counted in the singular.
    await expect(page.getByText("1 caught entry", { exact: true })).toBeVisible();
    await page.keyboard.press("/");
    await expect(page.getByLabel("Status")).toHaveCount(0);
    await expect(page.locator("a[data-brief-row]").first()).toContainText("Caught by the honeypot");
    await expect(page.locator("a[data-brief-row]").first().getByText("new", { exact: true })).toHaveCount(0);
    await expectNoInboxViolations(page, `the spam list (${size.name})`);
    await page.keyboard.press("Escape");
    await page.locator("a[data-brief-row]").first().focus();
    await page.keyboard.press("Enter");
    await expect(page.getByText("Caught by the honeypot.", { exact: true })).toBeVisible();
    expect(problems).toEqual([]);
  });

  test(`${size.name}: "Retry now" for a failed channel, "Send again" only after a confirm, and the audit log fits`, async ({
    page,
  }, testInfo) => {
    const problems = await watchForProblems(page);
    await page.setViewportSize(size);
    await signedIn(page);
    const brief = failing[size.name];
    if (!brief) throw new Error(`no brief stored for ${size.name}`);
    const reference = brief.record.reference;

    // A delivered channel has no "Retry now"; its "Send again" asks first, and Cancel sends nothing.
    // Opened from a search: every answer of the page's forms comes back to it with that list.
    await page.goto(`${briefUrl(reference)}?q=apollo`);
    await expect(page.getByRole("button", { name: /Retry now \(email\)/ })).toHaveCount(0);
    await tabTo(page, page.getByRole("link", { name: "Send again to email" }), 20);
    await page.keyboard.press("Enter");
    const confirm = page.getByRole("group", { name: "Send this brief to email again?" });
    await expect(confirm).toBeVisible();
    await expect(confirm.getByRole("button", { name: "Yes, send to email again" })).toBeFocused();
    await expectNoInboxViolations(page, `the send-again confirm (${size.name})`);
    await tabTo(page, confirm.getByRole("link", { name: "Cancel" }), 3);
    await page.keyboard.press("Enter");
    await expect(confirm).toBeHidden();
    expect(smtp.forReference(reference)).toHaveLength(0);

    await tabTo(page, page.getByRole("link", { name: "Send again to email" }), 20);
    await page.keyboard.press("Enter");
    await expect(confirm.getByRole("button", { name: "Yes, send to email again" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("status")).toContainText("Sent again");
    expect(smtp.forReference(reference)).toHaveLength(1);
    // The webhook was not touched by sending the email again: it still waits for "Retry now".
    expect(receiver.forReference(reference)).toHaveLength(0);

    // The failed channel: "Retry now" sends it at once (the receiver answers 204 now).
    await tabTo(page, page.getByRole("button", { name: "Retry now (webhook)" }), 20);
    await page.keyboard.press("Enter");
    await expect(page.getByRole("status")).toContainText("every channel delivered");
    await expect(page).toHaveURL(/\?q=apollo&done=redelivered/);
    await expect(page.getByRole("navigation", { name: "Briefs" }).locator("a[data-brief-row]")).toHaveCount(
      2,
    );
    expect(receiver.forReference(reference)).toHaveLength(1);
    expect(smtp.forReference(reference)).toHaveLength(1);
    await expect(page.getByRole("button", { name: /Retry now/ })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Send again to webhook" })).toBeVisible();

    // The audit log records it; on a phone as stacked entries, nothing cut and no row too tall.
    await page.goto(`${app.url}/inbox/audit`);
    await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();
    await expectNoInboxViolations(page, `the audit log (${size.name})`);
    await noWiderThanTheScreen(page);
    if (size.name === "phone") {
      const entries = page.getByRole("list", { name: "Audit log" }).getByRole("listitem");
      await expect(entries.first()).toContainText("redeliver");
      await expect(entries.first()).toContainText(reference);
      for (const entry of await entries.all()) expect(await height(entry)).toBeLessThan(120);
      await expect(page.getByRole("table")).toBeHidden();
    } else {
      await expect(page.getByRole("cell", { name: "redeliver", exact: true }).first()).toBeVisible();
    }
    await docsScreenshot(page, testInfo, size.name === "phone" ? "inbox-audit-phone" : "inbox-audit");

    // Signing out says so.
    if (size.name === "phone") {
      await tabTo(page, disclosure(page, "Menu"), 10);
      await page.keyboard.press("Enter");
    }
    await tabTo(page, page.getByRole("button", { name: "Sign out", exact: true }), 20);
    await page.keyboard.press("Enter");
    await expect(page.getByRole("status")).toHaveText(/You are signed out/);
    await expectNoInboxViolations(page, `signed out (${size.name})`);
    expect(problems).toEqual([]);
  });
}

test("Export these as CSV downloads the list once, and the audit log has one export for it", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 860 });
  await signedIn(page);
  await page.goto(`${app.url}/inbox/audit`);
  const exports = page
    .getByRole("row")
    .filter({ has: page.getByRole("cell", { name: "export", exact: true }) });
  const before = await exports.count();
  await page.goto(`${app.url}/inbox`);
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export these as CSV" }).click();
  expect((await downloading).suggestedFilename()).toMatch(/^briefs-\d{4}-\d{2}-\d{2}\.csv$/);
  await page.goto(`${app.url}/inbox/audit`);
  // Through next/link the router fetched the route once for a page, then the browser again.
  await expect(exports).toHaveCount(before + 1);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  for (const size of WIDTHS) {
    test(`${size.name}: the search and the folded filters work without JavaScript, each keeping the other`, async ({
      page,
    }) => {
      await page.setViewportSize(size);
      await signedIn(page);
      await page.goto(`${app.url}/inbox`);
      const search = page.getByRole("searchbox", { name: "Search" });
      if (size.name === "phone") {
        await expect(search).toBeHidden();
        await disclosure(page, "Filters").click();
      }
      await search.fill("hedy");
      await search.press("Enter");
      await expect(page).toHaveURL(/[?&]q=hedy(&|$)/);
      await expect(page.getByText("1 brief matches", { exact: true })).toBeVisible();
      await expect(search).toBeVisible();
      await disclosure(page, "Filters").click();
      await page.getByLabel("From").fill("2026-11-21");
      await page.getByRole("button", { name: "Find", exact: true }).click();
      await expect(page).toHaveURL(/[?&]from=2026-11-21(&|$)/);
      await expect(page).toHaveURL(/[?&]q=hedy(&|$)/);
      await expect(page.getByRole("link", { name: /Hedy Lamarr/ })).toBeVisible();
      await page.getByLabel("From").fill("2026-11-22");
      await page.getByRole("button", { name: "Find", exact: true }).click();
      await expect(page.getByText("No brief matches.")).toBeVisible();
      // (axe needs JavaScript: the same pages are scanned by the tests above.)
    });
  }
});
