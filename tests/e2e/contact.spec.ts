import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { makeExe, makePdf } from "../support/files";
import { E2E_INBOX } from "./env";
import { expect, fillBrief, readStoredBrief, test, spendContactBudget, VALID } from "./fixtures";

test.beforeEach(async ({ page }) => {
  await page.goto("/#contact");
});

test("a visitor sends a brief with a PDF and it lands in the inbox", async ({ page }) => {
  const pdf = Buffer.from(makePdf("Project brief for the e2e test"));
  await fillBrief(page);
  await page
    .getByLabel("Attach a brief")
    .setInputFiles({ name: "brief.pdf", mimeType: "application/pdf", buffer: pdf });
  await page.getByRole("button", { name: "Send brief" }).click();

  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeFocused();
  const reference = (await page.getByTestId("reference").textContent()) ?? "";
  expect(reference).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);

  const stored = await readStoredBrief(reference);
  expect(stored).toMatchObject({
    name: VALID.name,
    email: VALID.email,
    company: "Remington Rand",
    projectType: "web-application",
    budget: "50k-100k",
    timeline: "3-6-months",
    consent: true,
    attachment: {
      filename: "attachment.pdf",
      originalName: "brief.pdf",
      contentType: "application/pdf",
      size: pdf.byteLength,
      sha256: createHash("sha256").update(pdf).digest("hex"),
    },
  });
  const saved = await readFile(join(E2E_INBOX, stored.folder, "attachment.pdf"));
  expect(saved.equals(pdf)).toBe(true);
});

test("the browser checks the form with the shared schema and sends nothing while it is invalid", async ({
  page,
}) => {
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });
  const form = page.locator("#contact");
  await form.getByLabel("Name").fill("A");
  await form.getByLabel("Email").fill("not-an-email");
  await form.getByLabel("About the project").fill("Too short");
  await page.getByLabel("Attach a brief").setInputFiles({
    name: "archive.zip",
    mimeType: "application/zip",
    buffer: Buffer.from("PK"),
  });
  await page.getByRole("button", { name: "Send brief" }).click();

  const name = form.getByLabel("Name");
  await expect(name).toBeFocused();
  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(name).toHaveAccessibleDescription(/at least 2 characters/);
  await expect(form.getByLabel("Email")).toHaveAccessibleDescription(/valid email address/);
  await expect(form.getByLabel("Project type")).toHaveAccessibleDescription(/Choose the kind of project/);
  await expect(form.getByLabel("About the project")).toHaveAccessibleDescription(/at least 30 characters/);
  await expect(page.getByLabel("Attach a brief")).toHaveAccessibleDescription(
    /PDF, DOCX, TXT, MD, PNG or JPG file/,
  );
  await expect(form.getByLabel("You may contact me about this brief.")).toHaveAttribute(
    "aria-invalid",
    "true",
  );
  await expect(form.getByRole("status")).toContainText("Some fields need attention");
  expect(posts).toEqual([]);

  // Fixing a field clears its message; what was typed stays.
  await name.fill("Ada");
  await expect(name).not.toHaveAttribute("aria-invalid", "true");
  await expect(form.getByLabel("Email")).toHaveValue("not-an-email");
});

test("a file that lies about its type gets the server's message next to the file input", async ({ page }) => {
  await fillBrief(page);
  await page.getByLabel("Attach a brief").setInputFiles({
    name: "brief.pdf",
    mimeType: "application/pdf",
    buffer: Buffer.from(makeExe()),
  });
  const answer = page.waitForResponse((response) => response.url().endsWith("/api/contact"));
  await page.getByRole("button", { name: "Send brief" }).click();
  expect((await answer).status()).toBe(422);

  const file = page.getByLabel("Attach a brief");
  await expect(file).toBeFocused();
  await expect(file).toHaveAttribute("aria-invalid", "true");
  await expect(file).toHaveAccessibleDescription(/not a supported type/);
  // Everything typed is still there.
  await expect(page.locator("#contact").getByLabel("Name")).toHaveValue(VALID.name);
  await expect(page.locator("#contact").getByLabel("About the project")).toHaveValue(VALID.description);
});

test("over the limit, the form says when to try again", async ({ page }) => {
  // Five briefs from this test's address use up its budget (5 per 10 minutes).
  await spendContactBudget(page);
  await fillBrief(page);
  await page.getByRole("button", { name: "Send brief" }).click();
  await expect(page.locator("#contact").getByRole("status")).toContainText(/try again in (9|10) minutes/);
  await expect(page.locator("#contact").getByLabel("Name")).toHaveValue(VALID.name);
});

test("the upload shows progress, and the button cannot send twice", async ({ page }) => {
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && request.url().endsWith("/api/contact")) posts.push(request.url());
  });
  // A slow uplink, so the upload takes long enough to watch.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 20,
    downloadThroughput: -1,
    uploadThroughput: 1024 * 1024,
  });
  await fillBrief(page);
  const text = Buffer.alloc(3 * 1024 * 1024, "A line of a long brief.\n");
  await page
    .getByLabel("Attach a brief")
    .setInputFiles({ name: "brief.txt", mimeType: "text/plain", buffer: text });
  const button = page.getByRole("button", { name: "Send brief" });
  await button.click();

  const progress = page.getByRole("progressbar", { name: "Uploading" });
  await expect(progress).toBeVisible();
  await expect(page.getByRole("button", { name: "Sending…" })).toBeDisabled();
  await page.getByRole("button", { name: "Sending…" }).click({ force: true });
  await expect
    .poll(async () => Number(await progress.getAttribute("value")), { timeout: 15_000 })
    .toBeGreaterThan(0);
  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeVisible({
    timeout: 30_000,
  });
  expect(posts).toHaveLength(1);
});

test("the form can be filled and sent with the keyboard alone", async ({ page }) => {
  const form = page.locator("#contact");
  await form.getByLabel("Name").focus();
  await page.keyboard.type(VALID.name);
  await page.keyboard.press("Tab");
  await page.keyboard.type(VALID.email);
  await page.keyboard.press("Tab");
  await page.keyboard.type("Keyboard Ltd");
  await page.keyboard.press("Tab");
  await page.keyboard.type("CTO");
  for (const label of ["Project type", "Budget", "Timeline"]) {
    await page.keyboard.press("Tab");
    await expect(form.getByLabel(label)).toBeFocused();
    await page.keyboard.press("ArrowDown");
  }
  await page.keyboard.press("Tab");
  await expect(form.getByLabel("About the project")).toBeFocused();
  await page.keyboard.type(VALID.description);
  await page.keyboard.press("Tab"); // the file input: no file
  await page.keyboard.press("Tab");
  await expect(form.getByLabel("You may contact me about this brief.")).toBeFocused();
  await page.keyboard.press("Space");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Send brief" })).toBeFocused();
  await page.keyboard.press("Enter");

  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeFocused();
  const reference = (await page.getByTestId("reference").textContent()) ?? "";
  expect(await readStoredBrief(reference)).toMatchObject({ role: "CTO", projectType: "web-application" });
});

test("with human verification off, no widget and no Cloudflare script, even once the form is used", async ({
  page,
}) => {
  const cloudflare: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).hostname.endsWith("cloudflare.com")) cloudflare.push(request.url());
  });
  await fillBrief(page);
  await page.getByRole("contentinfo").getByLabel("Email", { exact: true }).focus();
  await expect(page.getByTestId("human-check")).toHaveCount(0);
  await page.getByRole("button", { name: "Send brief" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your brief is with us." })).toBeVisible();
  expect(cloudflare).toEqual([]);
});
