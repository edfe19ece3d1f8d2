import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { briefForm, postContact, validBrief } from "../support/contact";
import { makeFileOfSize } from "../support/files";
import { listInbox, readBriefJson } from "../support/inbox";
import { type AppServer, startApp, tempDir } from "../support/server";

/**
 * Real storage failures under `next start`, not mocks: a disk that fills up (a tmpfs of a chosen
 * size, mounted in a mount namespace of the server's own so nothing outside sees it) and a file-size
 * limit (RLIMIT_FSIZE, as systemd's LimitFSIZE= sets). Whatever fails, the answer is 503 and the
 * inbox holds no brief.json, no attachment and no temporary file of the refused brief.
 */

const KiB = 1024;

interface ErrorBody {
  ok: boolean;
  error: string;
  message: string;
}

/** Starts the app with its inbox on a fresh tmpfs of `sizeBytes`, seen only by the server. */
async function startOnTmpfs(sizeBytes: number): Promise<{ app: AppServer; inbox: () => string }> {
  const inbox = await tempDir("intake-tmpfs-");
  // Root may mount directly in a new mount namespace; anyone else needs a user namespace too.
  const asRoot = process.getuid?.() === 0;
  const launcher = [
    "unshare",
    ...(asRoot ? [] : ["--user", "--map-root-user"]),
    "--mount",
    "--propagation",
    "private",
    "sh",
    "-c",
    `mount -t tmpfs -o size=${sizeBytes},mode=0700 intake-inbox "$0" && exec "$@"`,
    inbox,
  ];
  const app = await startApp({ INBOX_DIR: inbox }, { launcher });
  // The tmpfs exists only in the server's mount namespace: read it through the server's root.
  return { app, inbox: () => join(`/proc/${app.pid}/root`, inbox) };
}

function pdf(size: number) {
  return { bytes: makeFileOfSize("pdf", size), name: "brief.pdf", type: "application/pdf" };
}

async function expectStorageUnavailable(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect((await response.json()) as ErrorBody).toEqual({
    ok: false,
    error: "storage_unavailable",
    message: expect.any(String),
  });
}

describe("the disk fills up between the attachment and brief.json", () => {
  // Exactly the attachment's size: its temporary file fits and is renamed into place, and then
  // brief.json finds no room. (Directories take no space on tmpfs.)
  const attachmentSize = 256 * KiB;
  let app: AppServer;
  let inbox: () => string;

  beforeAll(async () => {
    ({ app, inbox } = await startOnTmpfs(attachmentSize));
  });

  afterAll(async () => {
    await app?.stop();
  });

  it("answers 503 and leaves no brief.json and no orphan attachment", async () => {
    const response = await postContact(app.url, briefForm(validBrief(), pdf(attachmentSize)));
    await expectStorageUnavailable(response);
    // The failure was the commit point itself, after the attachment had been stored...
    expect(app.output()).toMatch(/\[contact\] brief [0-9A-Z-]+ not stored[\s\S]*brief\.json/);
    // ...and the attachment was removed again: nothing at all is left.
    expect(await listInbox(inbox())).toEqual([]);
    expect(app.output()).not.toContain("[api] unexpected error");
  });

  it("has freed the space again: the next brief is stored", async () => {
    const response = await postContact(app.url, briefForm(validBrief()));
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    const files = await listInbox(inbox());
    expect(files).toEqual([
      expect.stringMatching(new RegExp(`^briefs/.+/${reference}/brief\\.json$`)),
      // No channel is configured: the delivery record, written after the commit point, is `{}`.
      expect.stringMatching(new RegExp(`^briefs/.+/${reference}/delivery\\.json$`)),
    ]);
    expect(await readBriefJson(inbox(), reference)).toMatchObject({ reference, attachment: null });
  });
});

describe("the disk fills up while the attachment is written", () => {
  let app: AppServer;
  let inbox: () => string;

  beforeAll(async () => {
    ({ app, inbox } = await startOnTmpfs(128 * KiB));
  });

  afterAll(async () => {
    await app?.stop();
  });

  it("answers 503, removes the partial file and never writes brief.json", async () => {
    const response = await postContact(app.url, briefForm(validBrief(), pdf(512 * KiB)));
    await expectStorageUnavailable(response);
    // The file streams to the inbox as it arrives, so the disk fills up while it is received.
    expect(app.output()).toMatch(
      /\[contact\] the attached file could not be written to the inbox[\s\S]*ENOSPC/,
    );
    expect(await listInbox(inbox())).toEqual([]);
  });
});

describe("a file-size limit cuts the attachment short", () => {
  let app: AppServer;
  let inbox: string;

  beforeAll(async () => {
    inbox = await tempDir();
    // A write past the limit is cut short (a short count, then EFBIG; Node ignores SIGXFSZ).
    app = await startApp({ INBOX_DIR: inbox }, { launcher: ["prlimit", `--fsize=${256 * KiB}`] });
  });

  afterAll(async () => {
    await app?.stop();
  });

  it("answers 503 instead of storing a truncated attachment", async () => {
    const response = await postContact(app.url, briefForm(validBrief(), pdf(1024 * KiB)));
    await expectStorageUnavailable(response);
    expect(app.output()).toMatch(
      /\[contact\] the attached file could not be written to the inbox[\s\S]*EFBIG/,
    );
    expect(await listInbox(inbox)).toEqual([]);
  });

  it("still stores what fits under the limit", async () => {
    const response = await postContact(app.url, briefForm(validBrief(), pdf(64 * KiB)));
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    expect(await readBriefJson(inbox, reference)).toMatchObject({ attachment: { size: 64 * KiB } });
  });
});
