import { createHash } from "node:crypto";
import type { Page } from "@playwright/test";
import { makeFileOfSize, makePng } from "../support/files";
import { blobInbox } from "./blob-inbox";
import { E2E_BLOB_STATE } from "./env";
import { expect, fillBrief, test, spendContactBudget, VALID } from "./fixtures";

/**
 * The contact form with the Vercel Blob inbox (the `chromium-blob` project): the browser uploads
 * the file itself, with the Blob SDK, before sending the form. The SDK in the page calls Vercel's
 * API, `https://vercel.com/api/blob` (built into the client bundle); this project's browser
 * resolves vercel.com to the stand-in's HTTPS listener and every other name to nothing (see
 * playwright.config.ts), so the upload takes the SDK's real path, streamed over HTTP/2, and never
 * leaves this machine.
 */

const { readObject, storedBrief } = blobInbox(E2E_BLOB_STATE);

interface Traffic {
  /** Requests to Vercel's Blob API, as the browser made them. */
  blobApi: { method: string; url: string }[];
  /** Requests for any other host off loopback (there must be none). */
  elsewhere: string[];
}

function watchTraffic(page: Page): Traffic {
  const traffic: Traffic = { blobApi: [], elsewhere: [] };
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.origin === "https://vercel.com" && url.pathname.startsWith("/api/blob")) {
      traffic.blobApi.push({ method: request.method(), url: url.href });
    } else if (url.hostname !== "127.0.0.1") {
      traffic.elsewhere.push(url.href);
    }
  });
  return traffic;
}

test.beforeEach(async ({ page }) => {
  await page.goto("/#contact");
});

test("a 6 MB PDF goes straight to Blob with a progress bar, and the form carries only its path", async ({
  page,
}) => {
  // No console error, and no CSP violation (Chromium reports those as console errors), from the
  // page's load through the upload to the thank-you.
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto("/#contact");
  const traffic = watchTraffic(page);
  const contactPosts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && request.url().endsWith("/api/contact")) {
      contactPosts.push(request.postDataBuffer()?.toString("latin1") ?? "");
    }
  });
  // Past Vercel's 4.5 MB function body limit: only an upload ahead of the form can carry it.
  const pdf = Buffer.from(makeFileOfSize("pdf", 6 * 1024 * 1024));
  await fillBrief(page);
  await page
    .getByLabel("Attach a brief")
    .setInputFiles({ name: "Large brief.pdf", mimeType: "application/pdf", buffer: pdf });

  // A slow uplink, so the upload takes long enough to watch.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 20,
    downloadThroughput: -1,
    uploadThroughput: 2 * 1024 * 1024,
  });
  await page.getByRole("button", { name: "Send brief" }).click();
  const progress = page.getByRole("progressbar", { name: "Uploading" });
  await expect(progress).toBeVisible();
  await expect(page.getByRole("button", { name: "Sending…" })).toBeDisabled();
  await expect
    .poll(async () => Number(await progress.getAttribute("value")), { timeout: 15_000 })
    .toBeGreaterThan(0);

  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeFocused({
    timeout: 30_000,
  });
  const reference = (await page.getByTestId("reference").textContent()) ?? "";

  // Besides the app, the browser asked only Vercel's Blob API (that is, the stand-in), once.
  expect(traffic.elsewhere).toEqual([]);
  expect(traffic.blobApi.map(({ method, url }) => `${method} ${new URL(url).pathname}`)).toEqual([
    "PUT /api/blob/",
  ]);
  const staged = new URL(traffic.blobApi[0]?.url ?? "").searchParams.get("pathname") ?? "";
  expect(staged).toMatch(/^staging\/[0-9a-f]{32}\/Large brief\.pdf$/);

  // The form itself: the staged path, no file, a few kilobytes.
  expect(contactPosts).toHaveLength(1);
  const form = contactPosts[0] ?? "";
  expect(form).toContain('name="briefUpload"');
  expect(form).toContain(staged);
  expect(form).not.toContain("filename=");
  expect(form.length).toBeLessThan(8 * 1024);

  const { folder, record } = await storedBrief(reference);
  expect(record).toMatchObject({
    name: VALID.name,
    attachment: {
      filename: "attachment.pdf",
      originalName: "Large brief.pdf",
      contentType: "application/pdf",
      size: pdf.byteLength,
      sha256: createHash("sha256").update(pdf).digest("hex"),
    },
  });
  expect((await readObject(`${folder}/attachment.pdf`))?.equals(pdf)).toBe(true);
  expect(await readObject(staged)).toBeNull();
  expect(problems).toEqual([]);
});

test("a PNG named .pdf is stored as a PNG", async ({ page }) => {
  const traffic = watchTraffic(page);
  const png = Buffer.from(makePng(32, 32));
  await fillBrief(page);
  await page
    .getByLabel("Attach a brief")
    .setInputFiles({ name: "diagram.pdf", mimeType: "application/pdf", buffer: png });
  await page.getByRole("button", { name: "Send brief" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeVisible();
  const reference = (await page.getByTestId("reference").textContent()) ?? "";

  const { folder, record } = await storedBrief(reference);
  expect(record).toMatchObject({
    attachment: { filename: "attachment.png", originalName: "diagram.pdf", contentType: "image/png" },
  });
  expect((await readObject(`${folder}/attachment.png`))?.equals(png)).toBe(true);
  expect(traffic.elsewhere).toEqual([]);
});

test("past the upload limit, the form says when to try again and keeps what was typed", async ({ page }) => {
  const traffic = watchTraffic(page);
  // Ten tokens from this test's address use up its upload budget (10 per 10 minutes).
  for (let i = 0; i < 10; i++) {
    const response = await page.request.post("/api/contact/upload", {
      data: {
        type: "blob.generate-client-token",
        payload: { pathname: `staging/${"0".repeat(31)}${i.toString(16)}/a.pdf`, clientPayload: null },
      },
    });
    expect(response.status()).toBe(200);
  }
  await fillBrief(page);
  await page
    .getByLabel("Attach a brief")
    .setInputFiles({ name: "brief.pdf", mimeType: "application/pdf", buffer: Buffer.from(makePng(8, 8)) });
  await page.getByRole("button", { name: "Send brief" }).click();
  await expect(page.locator("#contact").getByRole("status")).toContainText(/try again in (9|10) minutes/);
  await expect(page.locator("#contact").getByLabel("Name")).toHaveValue(VALID.name);
  // Nothing was uploaded.
  expect(traffic.blobApi).toEqual([]);
});

test("sent again after a refusal, the form reuses its upload instead of sending the file twice", async ({
  page,
}) => {
  const traffic = watchTraffic(page);
  // Five briefs from this test's address use up its contact budget; its upload budget is its own.
  await spendContactBudget(page);
  await fillBrief(page);
  await page
    .getByLabel("Attach a brief")
    .setInputFiles({ name: "brief.png", mimeType: "image/png", buffer: Buffer.from(makePng(8, 8)) });
  const status = page.locator("#contact").getByRole("status");
  for (let attempt = 0; attempt < 2; attempt++) {
    const answer = page.waitForResponse((response) => response.url().endsWith("/api/contact"));
    await page.getByRole("button", { name: "Send brief" }).click();
    expect((await answer).status()).toBe(429);
    await expect(status).toContainText(/try again in/);
  }
  expect(traffic.blobApi.map(({ method }) => method)).toEqual(["PUT"]);
});
