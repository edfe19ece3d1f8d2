import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { confirmSubscriber, subscribe, subscriberId, unsubscribeSubscriber } from "@/lib/newsletter";
import { FilesystemStore } from "@/lib/store/filesystem";
import { parseCsv } from "../support/csv";
import { LINK_SECRET } from "../support/opt-in";
import { forgeSignInToken } from "../support/ops-web";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { expect, test } from "./fixtures";
import { docsScreenshot, expectNoInboxViolations, tabTo } from "./inbox-helpers";

/**
 * /inbox/subscribers in Chromium at 1280 px and 375 px, by accessible names: reached from the
 * inbox's sections, the confirmed subscribers counted per topic, filtered by status and by topic
 * (kept in the URL), paged, each row's link to the person's data, the CSV export (the ops tool's
 * columns) and its audit entry; nothing wider than a phone's screen, axe finds nothing; and the
 * same filters with JavaScript off. With DOCS_SCREENSHOTS=1 the list at both widths is written to
 * docs/ (inbox-subscribers.png, inbox-subscribers-phone.png).
 */

test.describe.configure({ mode: "serial", timeout: 90_000 });
test.use({ timezoneId: "Europe/Berlin", locale: "en-GB" });

const OPS = "ops@studio.example";
const WIDTHS = [
  { name: "desktop", width: 1280, height: 860 },
  { name: "phone", width: 375, height: 812 },
] as const;
/** Enough confirmed readers of one topic for a second page. */
const READERS = 55;
let smtp: SmtpTestServer;
let app: AppServer;

test.beforeAll(async () => {
  smtp = await startSmtpServer();
  const dir = await tempDir("e2e-inbox-subscribers-");
  const store = new FilesystemStore(dir);
  const at = (day: number, hour = 9) => new Date(Date.UTC(2026, 10, day, hour));
  // Pending records older than 7 days are removed by the server's own hourly gc: this one is new.
  const anHourAgo = new Date(Date.now() - 3_600_000);
  for (let index = 0; index < READERS; index++) {
    const email = `reader${String(index).padStart(2, "0")}@list.example`;
    await subscribe(store, { email, topics: ["Engineering"] }, new Date(Date.UTC(2026, 9, 1, 8, index)));
  }
  await subscribe(
    store,
    {
      email: "ada.lovelace@analytical-engines.example",
      topics: ["AI", "Research"],
      site: "same-origin",
      page: "/blog/ai",
    },
    at(20),
  );
  await subscribe(
    store,
    { email: "bob@pending.example", topics: ["AI"], site: "same-origin" },
    anHourAgo,
    undefined,
    {
      doubleOptIn: true,
    },
  );
  await subscribe(
    store,
    { email: "cy@double.example", topics: ["Quantum"], site: "same-origin" },
    at(19),
    undefined,
    {
      doubleOptIn: true,
    },
  );
  await confirmSubscriber(store, subscriberId("cy@double.example"), at(19, 10));
  await subscribe(store, { email: "dee@left.example", topics: ["AI"], site: "cross-site" }, at(18));
  await unsubscribeSubscriber(store, subscriberId("dee@left.example"), at(22));
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

const rows = (page: Page) =>
  page.getByRole("list", { name: "Subscribers", exact: true }).getByRole("listitem");

for (const size of WIDTHS) {
  test(`subscribers at ${size.width} px: topic counts, filters, paging, a person's data`, async ({
    page,
  }, testInfo) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await signedIn(page);
    await page.goto(`${app.url}/inbox`);
    if (size.name === "phone") await page.getByText("Menu").click();
    await page
      .getByRole("navigation", { name: "Inbox sections" })
      .getByRole("link", { name: "Subscribers" })
      .click();
    await expect(page).toHaveURL(/\/inbox\/subscribers$/);
    await expect(page.getByRole("heading", { name: "Subscribers", level: 1 })).toBeVisible();
    await expect(page.getByText(`${READERS + 4} subscribers`)).toBeVisible();

    // Confirmed only: bob is pending and dee left, so AI counts ada alone.
    const topics = page.getByRole("region", { name: "Confirmed subscribers by topic" });
    await expect(topics.getByRole("link", { name: "AI 1" })).toBeVisible();
    await expect(topics.getByRole("link", { name: `Engineering ${READERS}` })).toBeVisible();
    await expect(topics.getByRole("link", { name: "Quantum 1" })).toBeVisible();
    await expect(topics.getByRole("link", { name: "Gaming technology 0" })).toBeVisible();

    // Newest first, with how consent was given.
    const first = rows(page).first();
    await expect(first).toContainText("bob@pending.example");
    await expect(first).toContainText("pending");
    await expect(first).toContainText("Double opt-in, from this site");
    const ada = rows(page).filter({ hasText: "ada.lovelace@analytical-engines.example" });
    await expect(ada).toContainText("Single opt-in, from this site, page /blog/ai");
    await expect(ada).toContainText("AI, Research");
    await expect(rows(page).filter({ hasText: "dee@left.example" })).toContainText("sent from another site");
    await expect(rows(page)).toHaveCount(50);
    await docsScreenshot(
      page,
      testInfo,
      size.name === "phone" ? "inbox-subscribers-phone" : "inbox-subscribers",
    );
    await noWiderThanTheScreen(page);
    await expectNoInboxViolations(page, `the subscribers at ${size.width} px`);

    // The second page keeps going, oldest last.
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Older" }).click();
    await expect(page).toHaveURL(/\/inbox\/subscribers\?page=2$/);
    await expect(rows(page)).toHaveCount(READERS + 4 - 50);
    await expect(rows(page).last()).toContainText("reader00@list.example");

    // Filters by keyboard: status, then topic; both in the URL.
    await tabTo(page, page.getByLabel("Status", { exact: true }));
    await page.getByLabel("Status", { exact: true }).selectOption("confirmed");
    await page.getByLabel("Topic", { exact: true }).selectOption("AI");
    await tabTo(page, page.getByRole("button", { name: "Show" }));
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/inbox\/subscribers\?status=confirmed&topic=AI$/);
    await expect(page.getByText("1 subscriber matches")).toBeVisible();
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first()).toContainText("ada.lovelace@analytical-engines.example");
    await noWiderThanTheScreen(page);
    await expectNoInboxViolations(page, `the subscribers filtered at ${size.width} px`);

    await page.getByLabel("Topic", { exact: true }).selectOption("");
    await page.getByLabel("Status", { exact: true }).selectOption("unsubscribed");
    await page.getByRole("button", { name: "Show" }).click();
    await expect(page).toHaveURL(/\/inbox\/subscribers\?status=unsubscribed(&topic=)?$/);
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first()).toContainText("dee@left.example");

    // A topic's count is a link to its confirmed subscribers.
    await topics.getByRole("link", { name: "Quantum 1" }).click();
    await expect(page).toHaveURL(/\/inbox\/subscribers\?status=confirmed&topic=Quantum$/);
    await expect(rows(page).first()).toContainText("cy@double.example");
    await expect(rows(page).first()).toContainText("Double opt-in");

    // The person's data, found already, with the address nowhere in the URL.
    await tabTo(page, page.getByRole("link", { name: "Person's data for cy@double.example" }));
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(
      new RegExp(`/inbox/erase\\?subscriber=${subscriberId("cy@double.example")}$`),
    );
    await expect(
      page.getByRole("heading", { name: "What the inbox holds about cy@double.example" }),
    ).toBeVisible();
    await expect(page.getByTestId("erase-counts")).toContainText("1 subscriber record");
    await expect(page.getByRole("button", { name: "Download (JSON)" })).toBeVisible();
    await noWiderThanTheScreen(page);
    await expectNoInboxViolations(page, `a subscriber's data at ${size.width} px`);
  });
}

test("Export CSV holds what the list shows, in the ops tool's columns, and is audited", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 860 });
  await signedIn(page);
  await page.goto(`${app.url}/inbox/subscribers?status=confirmed&topic=AI`);
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^subscribers-\d{4}-\d{2}-\d{2}\.csv$/);
  const table = parseCsv(await readFile(await download.path(), "utf8"));
  expect(table[0]).toEqual([
    "email",
    "status",
    "topics",
    "subscribedAt",
    "updatedAt",
    "confirmedAt",
    "unsubscribedAt",
    "verification",
  ]);
  expect(table.slice(1)).toEqual([
    [
      "ada.lovelace@analytical-engines.example",
      "confirmed",
      "AI; Research",
      "2026-11-20T09:00:00.000Z",
      "2026-11-20T09:00:00.000Z",
      "2026-11-20T09:00:00.000Z",
      "",
      "off",
    ],
  ]);

  // Every confirmed subscriber, all pages: what an email service imports.
  await page.goto(`${app.url}/inbox/subscribers?status=confirmed`);
  const all = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const confirmed = parseCsv(await readFile(await (await all).path(), "utf8")).slice(1);
  expect(confirmed).toHaveLength(READERS + 2);
  expect(new Set(confirmed.map((row) => row[1]))).toEqual(new Set(["confirmed"]));

  await page
    .getByRole("navigation", { name: "Inbox sections" })
    .getByRole("link", { name: "Audit log" })
    .click();
  const audited = page
    .getByRole("row")
    .filter({ has: page.getByRole("cell", { name: "export-subscribers", exact: true }) });
  await expect(audited).toHaveCount(2);
  await expect(audited.first()).toContainText(`status=confirmed topic= count=${READERS + 2}`);
  await expect(audited.last()).toContainText("status=confirmed topic=AI count=1");
  await expectNoInboxViolations(page, "the audit log with subscriber exports");
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the filters and the topic counts work as plain links and a GET form", async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 812 });
    await signedIn(page);
    await page.goto(`${app.url}/inbox/subscribers`);
    await page.getByLabel("Status", { exact: true }).selectOption("pending");
    await page.getByRole("button", { name: "Show" }).click();
    await expect(page).toHaveURL(/\/inbox\/subscribers\?status=pending(&topic=)?$/);
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first()).toContainText("bob@pending.example");
    await page
      .getByRole("region", { name: "Confirmed subscribers by topic" })
      .getByRole("link", { name: "AI 1" })
      .click();
    await expect(page).toHaveURL(/\/inbox\/subscribers\?status=confirmed&topic=AI$/);
    await expect(rows(page)).toHaveCount(1);
    await noWiderThanTheScreen(page);
  });
});
