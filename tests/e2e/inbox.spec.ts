import { readFile } from "node:fs/promises";
import type { Page, TestInfo } from "@playwright/test";
import { FilesystemStore } from "@/lib/store/filesystem";
import { makePdf } from "../support/files";
import { LINK_SECRET } from "../support/opt-in";
import { attachmentFor, readJson, storeBrief } from "../support/briefs";
import { signInLink } from "../support/ops-web";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { expect, test } from "./fixtures";
import {
  expectNoncePolicy,
  expectNoInboxViolations,
  signInByKeyboard,
  tabTo,
  watchForProblems,
} from "./inbox-helpers";

/**
 * The inbox on the web in real Chromium, by keyboard alone: sign in through the emailed link,
 * search, open a brief, mark it handled, add a note, download the attachment, move a spam catch
 * to the inbox, find an address's data, download it and erase it, sign out; axe finds nothing on any page, and nothing is wider
 * than a phone, and no page logs a console error or a CSP violation under the inbox's nonce policy
 * (the shortcuts are the pages' own scripts at work). The app is a `next start` of its own with
 * its own inbox and a real SMTP server.
 * (The docs' screenshots are taken by inbox-use.spec.ts, at a laptop's and a phone's width.)
 */

// Each test is a whole journey (sign in, several pages, an accessibility scan of each): 12-15 s
// alone, and once 33 s beside the other worker on a two-CPU machine, past the default 30 s.
test.describe.configure({ mode: "serial", timeout: 90_000 });

const OPS = "ops@studio.example";
let smtp: SmtpTestServer;
let app: AppServer;
let store: FilesystemStore;
let lead: Awaited<ReturnType<typeof storeBrief>>;
let caught: Awaited<ReturnType<typeof storeBrief>>;
const pdf = makePdf("A brief for the browser test.");

test.beforeAll(async () => {
  smtp = await startSmtpServer();
  const dir = await tempDir("e2e-inbox-");
  store = new FilesystemStore(dir);
  const companies = ["Remington Rand", "Bell Labs", "Xerox PARC", "Analytical Engines", "Fairchild"];
  for (let day = 1; day <= 12; day++) {
    await storeBrief(store, {
      receivedAt: `2026-11-${String(day).padStart(2, "0")}T10:00:00.000Z`,
      fields: {
        name: ["Ada Lovelace", "Alan Kay", "Katherine Johnson", "Dennis Ritchie"][day % 4] ?? "Ada",
        company: companies[day % 5] ?? null,
      },
      delivery: { email: { ok: true, at: `2026-11-${String(day).padStart(2, "0")}T10:00:01.000Z` } },
    });
  }
  lead = await storeBrief(store, {
    receivedAt: "2026-11-20T09:30:00.000Z",
    fields: {
      name: "Grace Hopper",
      email: "grace@navy.example",
      company: "Navy Labs",
      description: "A compiler for business programs,\nwith documentation your analysts can read.",
    },
    attachment: attachmentFor(pdf, "compiler brief.pdf", "application/pdf", "pdf"),
    delivery: { webhook: { ok: false, at: "2026-11-20T09:30:02.000Z", error: "answered HTTP 500" } },
  });
  caught = await storeBrief(store, {
    receivedAt: "2026-11-18T08:00:00.000Z",
    folder: "spam",
    fields: { name: "Real Lead", email: "real@client.example", company: "Caught By Mistake" },
  });
  await storeBrief(store, {
    receivedAt: "2026-11-17T08:00:00.000Z",
    fields: { name: "Erin Erase", email: "erase.me@client.example" },
    delivery: {},
  });
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

async function noWiderThanThePhone(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: false });
  await testInfo.attach(name, { path, contentType: "image/png" });
}

test("ops sign in by the emailed link and handle briefs by keyboard alone", async ({ page }, testInfo) => {
  const problems = await watchForProblems(page);
  await page.setViewportSize({ width: 1280, height: 860 });
  const signInPage = await page.goto(`${app.url}/inbox/${lead.record.reference}`);
  await expect(page).toHaveURL(/\/inbox\/sign-in\?next=/);
  expectNoncePolicy(signInPage?.headers()["content-security-policy"]);
  await expectNoInboxViolations(page, "the sign-in page");

  await tabTo(page, page.getByLabel("Email"));
  await page.keyboard.type(OPS);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status")).toContainText("a link is on its way");
  await expectNoInboxViolations(page, "the sign-in page, link sent");

  // The link from the email: opening it changes nothing, its button signs in and goes back.
  await page.goto(await signInLink(smtp, OPS));
  await expectNoInboxViolations(page, "the sign-in confirmation page");
  await tabTo(page, page.getByRole("button", { name: "Sign in" }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/inbox/${lead.record.reference}$`));
  const cookies = await page.context().cookies();
  expect(cookies.find((cookie) => cookie.name === "__Host-ops_session")).toMatchObject({
    httpOnly: true,
    secure: true,
    sameSite: "Lax",
    path: "/",
  });

  // The list, and a search from the keyboard.
  const list = await page.goto(`${app.url}/inbox`);
  expectNoncePolicy(list?.headers()["content-security-policy"]);
  await expect(page.getByRole("heading", { name: "Briefs" })).toBeVisible();
  await expectNoInboxViolations(page, "the list");
  await screenshot(page, testInfo, "inbox-list");
  await page.keyboard.press("/");
  await expect(page.getByRole("searchbox", { name: "Search" })).toBeFocused();
  await page.keyboard.type("navy labs");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/[?&]q=navy\+labs/);
  await expect(page.locator("a[data-brief-row]")).toHaveCount(1);

  // j to the first row, Enter to open it.
  await page.keyboard.press("j");
  await expect(page.locator("a[data-brief-row]").first()).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Grace Hopper");
  await expect(page).toHaveURL(/q=navy\+labs/);
  await expectNoInboxViolations(page, "a brief");
  await screenshot(page, testInfo, "inbox-brief");

  // e marks the open brief handled.
  await page.keyboard.press("e");
  await expect(page.getByRole("button", { name: "Handled" })).toHaveAttribute("aria-pressed", "true");
  expect((await readJson<{ status: string }>(store, `${lead.folder}/state.json`))?.status).toBe("handled");

  // A note.
  await tabTo(page, page.getByLabel("Add a note"));
  await page.keyboard.type("Called back; a quote goes out on Monday.");
  await tabTo(page, page.getByRole("button", { name: "Save note" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status")).toContainText("Note added.");
  await expect(page.getByText("Called back; a quote goes out on Monday.")).toBeVisible();
  await expectNoInboxViolations(page, "a brief with a note");

  // The attachment.
  await tabTo(page, page.getByRole("link", { name: "Download the attachment" }));
  const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
  expect(download.suggestedFilename()).toBe("compiler brief.pdf");
  expect((await readFile((await download.path()) ?? "")).equals(Buffer.from(pdf))).toBe(true);

  // The help.
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
  await expectNoInboxViolations(page, "the shortcuts' help");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toBeHidden();
  expect(problems).toEqual([]);
});

test("a spam catch moves to the inbox, an address is erased, and signing out ends it, by keyboard", async ({
  page,
}) => {
  const problems = await watchForProblems(page);
  await page.setViewportSize({ width: 1280, height: 860 });
  await signInByKeyboard(page, app.url, smtp, OPS, 2);

  await tabTo(page, page.getByRole("link", { name: "Spam" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Spam" })).toBeVisible();
  await expectNoInboxViolations(page, "the spam list");
  await page.keyboard.press("j");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Real Lead");
  await expectNoInboxViolations(page, "a spam catch");
  await tabTo(page, page.getByRole("button", { name: "Not spam" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status")).toContainText("Moved to the inbox");
  expect(await readJson(store, `${caught.folder.replace("spam/", "briefs/")}/brief.json`)).toEqual(
    caught.record,
  );

  await tabTo(page, page.getByRole("link", { name: "A person's data" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "A person's data" })).toBeVisible();
  await expectNoInboxViolations(page, "a person's data");
  await tabTo(page, page.getByLabel("Address", { exact: true }));
  await page.keyboard.type("erase.me@client.example");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("erase-counts")).toContainText("1 brief");
  // Found by a POST: the address is in no URL.
  expect(page.url()).toBe(`${app.url}/inbox/erase`);
  await expectNoInboxViolations(page, "a person's data, with what matches");

  await tabTo(page, page.getByRole("button", { name: "Download (JSON)" }));
  const downloading = page.waitForEvent("download");
  await page.keyboard.press("Enter");
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^person-\d{4}-\d{2}-\d{2}\.json$/);
  const exported = JSON.parse(await readFile(await download.path(), "utf8")) as {
    address: string;
    briefs: { brief: { email: string } }[];
    spam: unknown[];
    subscriber: unknown;
  };
  expect(exported).toMatchObject({ address: "erase.me@client.example", spam: [], subscriber: null });
  expect(exported.briefs.map((entry) => entry.brief.email)).toEqual(["erase.me@client.example"]);

  await tabTo(page, page.getByLabel("To erase, type the address again"));
  await page.keyboard.type("erase.me@client.example");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status")).toContainText("Erased 1 brief, 0 spam entries and");

  await tabTo(page, page.getByRole("link", { name: "Audit log" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("cell", { name: "erase", exact: true })).toBeVisible();
  await expect(page.getByRole("cell", { name: "export-person", exact: true })).toBeVisible();
  await expectNoInboxViolations(page, "the audit log");

  // On a phone: nothing wider than the screen, the brief above its list.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${app.url}/inbox`);
  await noWiderThanThePhone(page);
  await page.goto(`${app.url}/inbox/${lead.record.reference}`);
  await noWiderThanThePhone(page);
  await expectNoInboxViolations(page, "a brief on a phone");

  // On a phone the sections and the account sit behind "Menu".
  await tabTo(page, page.locator("summary", { hasText: "Menu" }));
  await page.keyboard.press("Enter");
  await tabTo(page, page.getByRole("button", { name: "Sign out", exact: true }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/inbox\/sign-in/);
  await page.goto(`${app.url}/inbox`);
  await expect(page).toHaveURL(/\/inbox\/sign-in\?next=%2Finbox$/);
  expect(problems).toEqual([]);
});
