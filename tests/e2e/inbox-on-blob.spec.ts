import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { FilesystemStore } from "@/lib/store/filesystem";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { attachmentFor, storeBrief } from "../support/briefs";
import { makePng } from "../support/files";
import { listInbox } from "../support/inbox";
import { LINK_SECRET } from "../support/opt-in";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { expect, test } from "./fixtures";
import { expectNoInboxViolations, signInByKeyboard, tabTo, watchForProblems } from "./inbox-helpers";

/**
 * The inbox on the web on the Vercel Blob inbox (the stand-in, through the real SDK in
 * `next start`), in Chromium by keyboard: sign in, open a brief whose PNG is shown inline,
 * download it, mark it handled; axe finds nothing, and no page logs a console error or a CSP
 * violation under the inbox's nonce policy.
 */

// Each test is a whole journey (sign in, several pages, an accessibility scan of each): 12-15 s
// alone, and once 33 s beside the other worker on a two-CPU machine, past the default 30 s.
test.describe.configure({ mode: "serial", timeout: 90_000 });

const OPS = "ops@studio.example";
let standIn: BlobStandIn;
let smtp: SmtpTestServer;
let app: AppServer;
let reference: string;
const png = makePng(40, 30);

test.beforeAll(async () => {
  // Briefs as the service stores them, made on disk, then put in the stand-in object by object.
  const dir = await tempDir("e2e-inbox-blob-");
  const { record } = await storeBrief(new FilesystemStore(dir), {
    receivedAt: "2026-11-20T09:30:00.000Z",
    fields: { name: "Hedy Lamarr", company: "Frequency Hopping Inc." },
    attachment: attachmentFor(png, "sketch.png", "image/png", "png"),
    delivery: {},
  });
  reference = record.reference;
  standIn = await startBlobStandIn();
  for (const path of await listInbox(dir)) {
    standIn.objects.set(path, {
      pathname: path,
      body: await readFile(join(dir, path)),
      contentType: path.endsWith(".png") ? "image/png" : "application/json",
      access: "private",
      uploadedAt: new Date(),
      etag: `"${randomBytes(8).toString("hex")}"`,
    });
  }
  smtp = await startSmtpServer();
  app = await startApp({
    ...blobEnv(standIn.token, standIn.origin),
    OPS_EMAILS: OPS,
    LINK_SIGNING_SECRET: LINK_SECRET,
    SMTP_URL: smtp.url,
    EMAIL_FROM: "intake@studio.example",
    IP_HASH_SALT: "e2e",
  });
});

test.afterAll(async () => {
  await app?.stop();
  await smtp?.stop();
  await standIn?.close();
});

test("on the Blob inbox: sign in, see the image, download it and mark the brief handled, by keyboard", async ({
  page,
}) => {
  const problems = await watchForProblems(page);
  await signInByKeyboard(page, app.url, smtp, OPS);
  await expectNoInboxViolations(page, "the list on Blob");

  await page.keyboard.press("j");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Hedy Lamarr");
  const image = page.getByRole("img", { name: /sketch\.png/ });
  await expect(image).toBeVisible();
  // Visible as soon as it is laid out; its bytes arrive from the store after that.
  await expect
    .poll(() => image.evaluate((element: HTMLImageElement) => element.complete && element.naturalWidth))
    .toBe(40);
  await expectNoInboxViolations(page, "a brief on Blob");

  await tabTo(page, page.getByRole("link", { name: "Download the attachment" }));
  const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
  expect(download.suggestedFilename()).toBe("sketch.png");
  expect((await readFile((await download.path()) ?? "")).equals(Buffer.from(png))).toBe(true);

  await tabTo(page, page.getByRole("button", { name: "Handled" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status")).toContainText("Status saved.");
  await expect(page.getByRole("button", { name: "Handled" })).toHaveAttribute("aria-pressed", "true");
  const state = [...standIn.objects.values()].find((object) =>
    object.pathname.endsWith(`${reference}/state.json`),
  );
  expect(JSON.parse(state?.body.toString("utf8") ?? "{}")).toMatchObject({ status: "handled" });
  expect(problems).toEqual([]);
});
