import { readdir, utimes, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { createStore } from "@/lib/store";
import { routeBlobStorageTo } from "../support/blob-routing.mjs";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { describeInboxTool } from "../support/inbox-tool-suite";
import { describeRetentionAndPersonData } from "../support/retention-suite";
import { runInbox, storeBrief } from "../support/ops";
import { tempDir } from "../support/server";

/**
 * The inbox tool's command tests on the Vercel Blob driver: the real @vercel/blob SDK, in the tool
 * and in the test that fills the inbox, against the local stand-in. The test process is routed to
 * it here; the tool's process through the backends' preload (NODE_OPTIONS), as `next start` is.
 */

const PRELOAD = resolve("tests/support/blob-preload.mjs");
/** Small pages, so every listing the tool makes has to follow the SDK's cursor across several. */
const PAGE_SIZE = 10;

let standIn: BlobStandIn;
let restoreDispatcher: () => void;
const savedApiUrl = process.env.VERCEL_BLOB_API_URL;

beforeAll(async () => {
  standIn = await startBlobStandIn();
  standIn.maxPageSize = PAGE_SIZE;
  process.env.VERCEL_BLOB_API_URL = standIn.apiUrl;
  restoreDispatcher = routeBlobStorageTo(standIn.origin);
});

afterAll(async () => {
  restoreDispatcher?.();
  if (savedApiUrl === undefined) delete process.env.VERCEL_BLOB_API_URL;
  else process.env.VERCEL_BLOB_API_URL = savedApiUrl;
  await standIn?.close();
});

async function openBlobInbox() {
  standIn.objects.clear();
  standIn.requests.length = 0;
  standIn.fault = null;
  const env = { BLOB_READ_WRITE_TOKEN: standIn.token };
  // A temporary folder of its own: gc looks there for abandoned upload spools, never in this machine's.
  const tmp = await tempDir("ops-blob-tmp-");
  return {
    // The store the app would build from the same variables.
    store: createStore(parseConfig(env)),
    env: {
      ...env,
      VERCEL_BLOB_API_URL: standIn.apiUrl,
      TEST_BLOB_STANDIN_ORIGIN: standIn.origin,
      NODE_OPTIONS: `--import ${PRELOAD}`,
      TMPDIR: tmp,
    },
    name: "the Vercel Blob inbox",
    close: async () => {},
  };
}

describeInboxTool({ name: "Vercel Blob", open: openBlobInbox });
describeRetentionAndPersonData({ name: "Vercel Blob", open: openBlobInbox });

describe("inbox tool on the Vercel Blob driver: what it asks of the store", () => {
  it("reads through the SDK, following list pages, and only downloads what it shows", async () => {
    const inbox = await openBlobInbox();
    const stored = [];
    for (let index = 0; index < 25; index++) {
      const minute = String(index).padStart(2, "0");
      stored.push(await storeBrief(inbox.store, { receivedAt: `2025-12-24T10:${minute}:00.000Z` }));
    }
    await storeBrief(inbox.store, { receivedAt: "2025-11-30T10:00:00.000Z" });
    standIn.requests.length = 0;

    const result = await runInbox(["list", "--since", "2025-12-01"], { env: inbox.env });
    expect(result.code).toBe(0);
    const rows = result.stdout.split("\n").filter((line) => /^[A-Z0-9]{4}-/.test(line));
    expect(rows.map((row) => row.slice(0, 19))).toEqual(
      stored.map((brief) => brief.record.reference).reverse(),
    );

    const lists = standIn.requests.filter((request) => request.operation === "list");
    const downloads = standIn.requests.filter((request) => request.operation === "download");
    // 25 objects in December, 10 to a page: three pages, and nothing listed before December.
    expect(lists.length).toBeGreaterThanOrEqual(3);
    expect(downloads.map((request) => request.pathname).sort()).toEqual(
      stored.map((brief) => `${brief.folder}/brief.json`).sort(),
    );
    expect(standIn.requests.every((request) => request.status < 400)).toBe(true);
  });

  it("a store that fails while exporting stops the export with exit 1, and leaves no partial file", async () => {
    const inbox = await openBlobInbox();
    // Exported before the failure: a partial file would hold its row.
    await storeBrief(inbox.store, { receivedAt: "2025-12-24T10:00:00.000Z" });
    const broken = await storeBrief(inbox.store, { receivedAt: "2025-12-23T10:00:00.000Z" });
    standIn.fault = {
      match: ({ operation, pathname }) =>
        operation === "download" && pathname === `${broken.folder}/brief.json`,
      status: 500,
    };
    const cwd = await tempDir("ops-cwd-");
    const result = await runInbox(["export", "--format", "csv", "--out", "briefs.csv"], {
      env: inbox.env,
      cwd,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("inbox: the inbox could not be read:");
    expect(result.stderr).toContain(broken.record.reference);
    expect(await readdir(cwd)).toEqual([]);
  });
});

describe("inbox tool on the Vercel Blob driver: gc", () => {
  const stagedAt = (path: string, ageMinutes: number, size = 1024) => {
    standIn.objects.set(path, {
      pathname: path,
      body: Buffer.alloc(size, 0x41),
      contentType: "application/pdf",
      access: "private",
      uploadedAt: new Date(Date.now() - ageMinutes * 60_000),
      etag: `"${path}"`,
    });
  };

  it("removes staged uploads older than an hour, keeps fresh ones and everything outside staging/", async () => {
    const inbox = await openBlobInbox();
    const brief = await storeBrief(inbox.store, { receivedAt: "2020-01-01T10:00:00.000Z" });
    stagedAt("staging/00000000000000000000000000000001/old brief.pdf", 61, 2048);
    stagedAt("staging/00000000000000000000000000000002/older.png", 60 * 24 * 3);
    stagedAt("staging/00000000000000000000000000000003/fresh.pdf", 59);
    const outside = [...standIn.objects.keys()].filter((path) => !path.startsWith("staging/"));

    const dry = await runInbox(["gc", "--dry-run"], { env: inbox.env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      "would remove  staging/00000000000000000000000000000001/old brief.pdf  (2 KB,",
    );
    expect(dry.stdout).toContain("would remove  staging/00000000000000000000000000000002/older.png");
    expect(dry.stdout).toContain(
      "2 staged uploads older than 60 minutes would be removed in the Vercel Blob inbox",
    );
    expect(standIn.objects.size).toBe(outside.length + 3);

    const result = await runInbox(["gc"], { env: inbox.env });
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n").filter((line) => line.startsWith("removed  "))).toHaveLength(2);
    expect(result.stdout).toContain(
      "2 staged uploads older than 60 minutes removed in the Vercel Blob inbox",
    );
    expect([...standIn.objects.keys()].sort()).toEqual(
      [...outside, "staging/00000000000000000000000000000003/fresh.pdf"].sort(),
    );
    expect(outside).toContain(`${brief.folder}/brief.json`);

    const again = await runInbox(["gc"], { env: inbox.env });
    expect(again.stdout).toBe(
      "No staged uploads older than 60 minutes found in the Vercel Blob inbox\n" +
        "Briefs and spam are kept forever (RETENTION_DAYS is not set)\n",
    );
  });

  it("removes an upload's spool file that a stopped process left in the temporary folder over an hour ago", async () => {
    const inbox = await openBlobInbox();
    const spools = await tempDir("ops-spools-");
    const abandoned = join(spools, "intake-upload-00112233aabbccdd");
    await writeFile(abandoned, Buffer.alloc(2048, 0x25));
    await writeFile(join(spools, "intake-upload-99887766ffeeddcc"), "recent");
    await writeFile(join(spools, "someone-else-s-file"), "not ours");
    const lastWritten = new Date(Date.now() - 2 * 60 * 60_000);
    await utimes(abandoned, lastWritten, lastWritten);
    await utimes(join(spools, "someone-else-s-file"), lastWritten, lastWritten);

    const result = await runInbox(["gc"], { env: { ...inbox.env, TMPDIR: spools } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `removed  ${abandoned}  (2 KB, last written ${lastWritten.toISOString()})\n`,
    );
    expect(result.stdout).toContain(
      "1 unfinished upload older than 60 minutes removed in the Vercel Blob inbox\n",
    );
    const left = await readdir(spools);
    expect(left).not.toContain("intake-upload-00112233aabbccdd");
    expect(left).toEqual(expect.arrayContaining(["intake-upload-99887766ffeeddcc", "someone-else-s-file"]));
  });

  it("removes the inbox on the web's expired sessions and spent links too, and says how many", async () => {
    const inbox = await openBlobInbox();
    stagedAt("ops/sessions/old-session.json", 13 * 60);
    stagedAt("ops/sessions/live-session.json", 60);
    stagedAt("ops/spent-links/old-link.json", 90);
    const dry = await runInbox(["gc", "--dry-run"], { env: inbox.env });
    expect(dry.stdout).toContain("would remove  ops/sessions/old-session.json  (expired, written ");
    expect(dry.stdout).toContain("2 expired sign-in records of the inbox on the web would be removed\n");
    expect(standIn.objects.has("ops/sessions/old-session.json")).toBe(true);
    const result = await runInbox(["gc"], { env: inbox.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("2 expired sign-in records of the inbox on the web removed\n");
    expect([...standIn.objects.keys()].filter((path) => path.startsWith("ops/"))).toEqual([
      "ops/sessions/live-session.json",
    ]);
  });

  it("a store that cannot be listed: exit 1, nothing removed", async () => {
    const inbox = await openBlobInbox();
    stagedAt("staging/00000000000000000000000000000001/old.pdf", 120);
    standIn.fault = { status: 403, match: ({ operation }) => operation === "list" };
    const result = await runInbox(["gc"], { env: inbox.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("inbox: the inbox could not be read");
    expect(standIn.objects.size).toBe(1);
  });
});
