import type { Page } from "@playwright/test";
import { FilesystemStore } from "@/lib/store/filesystem";
import { storeBrief, storeUndelivered } from "../support/briefs";
import { LINK_SECRET } from "../support/opt-in";
import { forgeSignInToken } from "../support/ops-web";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { expect, test } from "./fixtures";
import { expectNoInboxViolations, tabTo, watchForProblems } from "./inbox-helpers";

/**
 * Deliveries not done, as ops see them (part 4, "Ops see it"), on a laptop (1280 px) and a phone
 * (375 px): the list marks a brief whose channel is retrying or gave up, in words; counts them; the
 * folded filters narrow the list to either (kept in the URL, with the search, and in the CSV link);
 * the brief's page says each channel's state and folds its attempt log; and "Retry now" on a server
 * where the channel is not configured sends nothing and says the channel still fails. The briefs
 * carry due and failed records as lib/deliveries leaves them, each next attempt far ahead so no
 * scheduler takes it. axe finds nothing anywhere.
 */

test.describe.configure({ mode: "serial", timeout: 90_000 });
test.use({ timezoneId: "Europe/Berlin", locale: "en-GB" });

const OPS = "ops@studio.example";
const WIDTHS = [
  { name: "desktop", width: 1280, height: 860 },
  { name: "phone", width: 375, height: 812 },
] as const;
const FAR_AHEAD = "2099-01-01T00:00:00.000Z";

type Stored = Awaited<ReturnType<typeof storeBrief>>;
let smtp: SmtpTestServer;
let app: AppServer;
let delivered: Stored;
const retrying: Record<string, Stored> = {};
const failed: Record<string, Stored> = {};

test.beforeAll(async () => {
  smtp = await startSmtpServer();
  const dir = await tempDir("e2e-inbox-deliveries-");
  const store = new FilesystemStore(dir);
  delivered = await storeBrief(store, {
    receivedAt: "2026-11-10T09:00:00.000Z",
    fields: { name: "Hedy Lamarr", email: "hedy@frequency.example" },
    delivery: {
      webhook: {
        state: "delivered",
        ok: true,
        at: "2026-11-10T09:00:01.000Z",
        attempts: 1,
        log: [{ at: "2026-11-10T09:00:01.000Z", ok: true, ms: 80, status: 204 }],
      },
    },
  });
  for (const [index, size] of WIDTHS.entries()) {
    retrying[size.name] = await storeUndelivered(store, "retrying", {
      receivedAt: `2026-11-1${index + 1}T10:00:00.000Z`,
      fields: { name: `Alan Turing ${size.name}`, email: `alan.${size.name}@bletchley.example` },
      dueAt: FAR_AHEAD,
    });
    failed[size.name] = await storeUndelivered(store, "failed", {
      receivedAt: `2026-11-1${index + 3}T10:00:00.000Z`,
      fields: { name: `Joan Clarke ${size.name}`, email: `joan.${size.name}@bletchley.example` },
      channel: "email",
      error: "550 mailbox unavailable",
    });
  }
  // Sign-in links need SMTP and a sender; without EMAIL_TO and WEBHOOK_URL no channel is configured.
  app = await startApp({
    INBOX_DIR: dir,
    OPS_EMAILS: OPS,
    LINK_SIGNING_SECRET: LINK_SECRET,
    SMTP_URL: smtp.url,
    EMAIL_FROM: "Northwind Studio <intake@studio.example>",
    IP_HASH_SALT: "e2e",
  });
});

test.afterAll(async () => {
  await app?.stop();
  await smtp?.stop();
});

async function signedIn(page: Page): Promise<void> {
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

const row = (page: Page, brief: Stored) => page.locator(`a[data-brief-row="${brief.record.reference}"]`);

for (const size of WIDTHS) {
  test(`${size.name}: retrying and failed briefs are marked, counted and filtered; their pages show state and log; Retry now says what happened`, async ({
    page,
  }) => {
    const problems = await watchForProblems(page);
    await page.setViewportSize(size);
    await signedIn(page);
    const mine = { retrying: retrying[size.name], failed: failed[size.name] };
    if (!mine.retrying || !mine.failed) throw new Error(`no briefs stored for ${size.name}`);

    // The list: each mark in words, none on a delivered brief; the counts link to the filter.
    await page.goto(`${app.url}/inbox`);
    await expect(page.getByRole("heading", { name: "Briefs" })).toBeVisible();
    // In words a screen reader reads out with the row (the symbol beside them is hidden from it).
    await expect(row(page, mine.retrying).locator('[data-delivery-mark="retrying"]')).toBeVisible();
    await expect(row(page, mine.retrying)).toHaveAccessibleName(/ Retrying /);
    await expect(row(page, mine.failed).locator('[data-delivery-mark="failed"]')).toBeVisible();
    await expect(row(page, mine.failed)).toHaveAccessibleName(/ Delivery failed /);
    await expect(row(page, delivered).locator("[data-delivery-mark]")).toHaveCount(0);
    await expect(page.locator("[data-delivery-counts]")).toHaveText("2 briefs retrying, 2 failed");
    await expectNoInboxViolations(page, `the list with marks (${size.name})`);
    await noWiderThanTheScreen(page);

    // The folded filters: Delivery "failed", by keyboard; the URL keeps it, the list narrows.
    await page.keyboard.press("/");
    await expect(page.getByRole("searchbox", { name: "Search" })).toBeFocused();
    const select = page.getByLabel("Delivery");
    await expect(select.locator("option")).toHaveText(["Any", "retrying", "failed"]);
    await select.selectOption("failed");
    await tabTo(page, page.getByRole("button", { name: "Find" }), 12);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/inbox\?.*\bdelivery=failed(&|$)/);
    const rows = page.locator("a[data-brief-row]");
    await expect(rows).toHaveCount(2);
    await expect(rows.locator('[data-delivery-mark="failed"]')).toHaveCount(2);
    await expect(page.getByText("2 briefs match", { exact: true })).toBeVisible();
    await expect(page.locator("details[data-filters] summary")).toContainText("(1 set)");
    await expect(page.getByRole("link", { name: "Export these as CSV" })).toHaveAttribute(
      "href",
      "/inbox/export.csv?delivery=failed",
    );
    await expectNoInboxViolations(page, `the list filtered on failed (${size.name})`);

    // Combined with the search: the filter stays, the search narrows it to this width's brief.
    await page.getByRole("searchbox", { name: "Search" }).fill(size.name);
    await page.getByRole("button", { name: "Find" }).click();
    await expect(page).toHaveURL(new RegExp(`\\?q=${size.name}&.*\\bdelivery=failed(&|$)`));
    await expect(rows).toHaveCount(1);
    await expect(row(page, mine.failed)).toBeVisible();
    await expect(page.getByLabel("Delivery")).toHaveValue("failed");

    // The failed brief's page: the channel's state in words, its log folded, then opened.
    await row(page, mine.failed).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { name: `Joan Clarke ${size.name}` })).toBeVisible();
    const notifications = page.locator("#section-Notifications").locator("..");
    await expect(page.getByText("failed after 2 attempts: 550 mailbox unavailable")).toBeVisible();
    const log = page.locator("summary", { hasText: "2 attempts" });
    await tabTo(page, log, 40);
    await page.keyboard.press("Enter");
    const entries = page.locator("details[open] ol li");
    await expect(entries).toHaveCount(2);
    await expect(entries.first()).toContainText("status 503");
    await expect(entries.first()).toContainText("failed");
    await expect(notifications.getByRole("button", { name: "Retry now (email)" })).toBeVisible();
    await expectNoInboxViolations(page, `a failed brief with its log open (${size.name})`);
    await noWiderThanTheScreen(page);

    // The retrying brief, through the filter: its next attempt, and "Retry now" on a server
    // where the webhook is not configured: nothing is sent, and the page says so.
    await page.goto(`${app.url}/inbox?delivery=retrying`);
    await expect(page.locator("a[data-brief-row]")).toHaveCount(2);
    await row(page, mine.retrying).click();
    await expect(page.getByRole("heading", { name: `Alan Turing ${size.name}` })).toBeVisible();
    await expect(page.getByText(/retrying \(next attempt 2099-01-01 01:00:00 CET\)/)).toBeVisible();
    await expectNoInboxViolations(page, `a retrying brief (${size.name})`);
    await tabTo(page, page.getByRole("button", { name: "Retry now (webhook)" }), 40);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\?delivery=retrying&done=not-sent/);
    await expect(page.getByRole("status")).toHaveText(
      "Nothing was sent: that channel is not configured on this server, or an attempt at it is already under way.",
    );
    await expect(page.getByText(/retrying \(next attempt 2099-01-01 01:00:00 CET\)/)).toBeVisible();
    await expectNoInboxViolations(page, `after Retry now (${size.name})`);
    await noWiderThanTheScreen(page);
    expect(problems).toEqual([]);
  });
}
