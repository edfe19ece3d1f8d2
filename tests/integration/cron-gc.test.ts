import { readdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribe, subscriberPath } from "@/lib/newsletter";
import { readAudit } from "@/lib/ops";
import { FilesystemStore } from "@/lib/store/filesystem";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { storeBrief } from "../support/ops";
import { type AppServer, startApp, tempDir } from "../support/server";

/**
 * GET /api/cron/gc under `next start`: off (404) without CRON_SECRET, 401 without its bearer
 * token, and with it the staged uploads no brief claimed within an hour are removed from the
 * Vercel Blob inbox (the stand-in, through the real SDK), and nothing else.
 */

const SECRET = "cron-secret-0123456789abcdef";

let standIn: BlobStandIn;
let app: AppServer;
let off: AppServer;
/** The app's temporary folder, where the Blob inbox spools uploads as they arrive. */
let spools: string;

beforeAll(async () => {
  standIn = await startBlobStandIn();
  spools = await tempDir("cron-spools-");
  [app, off] = await Promise.all([
    startApp({ ...blobEnv(standIn.token, standIn.origin), CRON_SECRET: SECRET, TMPDIR: spools }),
    startApp(blobEnv(standIn.token, standIn.origin)),
  ]);
});

afterAll(async () => {
  await Promise.all([app?.stop(), off?.stop()]);
  await standIn?.close();
});

function stage(path: string, ageMinutes: number, contentType = "application/pdf") {
  standIn.objects.set(path, {
    pathname: path,
    body: Buffer.from("%PDF-1.4 staged"),
    contentType,
    access: "private",
    uploadedAt: new Date(Date.now() - ageMinutes * 60_000),
    etag: `"${path}"`,
  });
}

const gc = (server: AppServer, authorization?: string) =>
  fetch(`${server.url}/api/cron/gc`, { headers: authorization ? { authorization } : {} });

describe("GET /api/cron/gc", () => {
  it("answers 404 while CRON_SECRET is not set, whatever the request carries", async () => {
    stage("staging/0000000000000000000000000000000a/old.pdf", 120);
    for (const authorization of [undefined, `Bearer ${SECRET}`]) {
      const response = await gc(off, authorization);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ ok: false, error: "not_found" });
    }
    expect(standIn.objects.has("staging/0000000000000000000000000000000a/old.pdf")).toBe(true);
  });

  it.each([
    ["no Authorization", undefined],
    ["another secret", "Bearer cron-secret-0123456789abcdeX"],
    ["the secret without the scheme", SECRET],
    ["the secret's prefix", `Bearer ${SECRET.slice(0, -1)}`],
    ["an empty token", "Bearer "],
  ])("answers 401 for %s, and removes nothing", async (_label, authorization) => {
    stage("staging/0000000000000000000000000000000b/old.pdf", 120);
    const response = await gc(app, authorization);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({ ok: false, error: "unauthorized" });
    expect(standIn.objects.has("staging/0000000000000000000000000000000b/old.pdf")).toBe(true);
  });

  it("with the bearer token removes staged uploads older than an hour, and only those", async () => {
    stage("staging/0000000000000000000000000000000c/old.pdf", 61);
    stage("staging/0000000000000000000000000000000d.claim", 90);
    stage("staging/0000000000000000000000000000000e/fresh.pdf", 30);
    stage("briefs/2020/01/01/K7QM-3XD9-PTWA-84HC/attachment.pdf", 60 * 24 * 365);
    const response = await gc(app, `Bearer ${SECRET}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { ok: boolean; removed: number };
    expect(body.ok).toBe(true);
    const left = [...standIn.objects.keys()];
    expect(left).not.toContain("staging/0000000000000000000000000000000c/old.pdf");
    expect(left).not.toContain("staging/0000000000000000000000000000000d.claim");
    expect(left).toContain("staging/0000000000000000000000000000000e/fresh.pdf");
    expect(left).toContain("briefs/2020/01/01/K7QM-3XD9-PTWA-84HC/attachment.pdf");
    expect(left.filter((path) => path.startsWith("staging/") && !path.endsWith("fresh.pdf"))).toEqual([]);
    expect(body.removed).toBeGreaterThanOrEqual(2);
    // Run again: nothing left to remove.
    expect(await (await gc(app, `Bearer ${SECRET}`)).json()).toEqual({ ok: true, removed: 0 });
  });

  it("removes an upload's spool file that a stopped process left over an hour ago, and keeps a recent one", async () => {
    const abandoned = join(spools, "intake-upload-0011223344556677");
    await writeFile(abandoned, Buffer.alloc(4096, 0x25));
    await writeFile(join(spools, "intake-upload-8899aabbccddeeff"), "still arriving");
    const lastWritten = new Date(Date.now() - 90 * 60_000);
    await utimes(abandoned, lastWritten, lastWritten);
    const response = await gc(app, `Bearer ${SECRET}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, removed: 1 });
    const left = await readdir(spools);
    expect(left).not.toContain("intake-upload-0011223344556677");
    expect(left).toContain("intake-upload-8899aabbccddeeff");
  });

  it("removes the inbox on the web's expired sessions and spent links, and keeps live ones", async () => {
    const json = "application/json";
    stage(
      "ops/sessions/0000000000000000000000000000000000000000000000000000000000000001.json",
      12 * 60 + 5,
      json,
    );
    stage(
      "ops/sessions/0000000000000000000000000000000000000000000000000000000000000002.json",
      11 * 60,
      json,
    );
    stage("ops/spent-links/expired-link.json", 61, json);
    stage("ops/spent-links/recent-link.json", 10, json);
    const response = await gc(app, `Bearer ${SECRET}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { removed: number }).removed).toBeGreaterThanOrEqual(2);
    const left = [...standIn.objects.keys()].filter((path) => path.startsWith("ops/"));
    expect(left.sort()).toEqual([
      "ops/sessions/0000000000000000000000000000000000000000000000000000000000000002.json",
      "ops/spent-links/recent-link.json",
    ]);
  });

  it("a store that fails: 503 storage_unavailable within 10 s, and nothing is removed", async () => {
    stage("staging/0000000000000000000000000000000f/old.pdf", 120);
    standIn.fault = { status: 503, match: ({ operation }) => operation === "list" };
    const started = Date.now();
    try {
      const response = await gc(app, `Bearer ${SECRET}`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
    } finally {
      standIn.fault = null;
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(standIn.objects.has("staging/0000000000000000000000000000000f/old.pdf")).toBe(true);
  });
});

describe("GET /api/cron/gc with RETENTION_DAYS", () => {
  let retaining: AppServer;
  let store: FilesystemStore;

  beforeAll(async () => {
    const dir = await tempDir("cron-retention-");
    store = new FilesystemStore(dir);
    retaining = await startApp({ INBOX_DIR: dir, CRON_SECRET: SECRET, RETENTION_DAYS: "30" });
  });

  afterAll(async () => {
    await retaining?.stop();
  });

  it("erases the briefs and spam past it and the subscriptions pending for 7 days, audited once as cron", async () => {
    const day = 86_400_000;
    const ago = (days: number) => new Date(Date.now() - days * day);
    const old = await storeBrief(store, { receivedAt: ago(31).toISOString() });
    const kept = await storeBrief(store, { receivedAt: ago(29).toISOString() });
    const oldSpam = await storeBrief(store, { receivedAt: ago(45).toISOString(), folder: "spam" });
    await subscribe(store, { email: "stale@example.com", topics: [] }, ago(8), undefined, {
      doubleOptIn: true,
    });
    await subscribe(store, { email: "loyal@example.com", topics: [] }, ago(60));

    const response = await gc(retaining, `Bearer ${SECRET}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, removed: 3 });
    expect(await store.get(`${old.folder}/brief.json`)).toBeNull();
    expect(await store.get(`${oldSpam.folder}/brief.json`)).toBeNull();
    expect(await store.get(`${kept.folder}/brief.json`)).not.toBeNull();
    expect(await store.get(subscriberPath("stale@example.com"))).toBeNull();
    expect(await store.get(subscriberPath("loyal@example.com"))).not.toBeNull();
    expect(await readAudit(store)).toEqual([
      { at: expect.any(String), actor: "cron", action: "retention", target: "1 briefs, 1 spam" },
    ]);

    expect(await (await gc(retaining, `Bearer ${SECRET}`)).json()).toEqual({ ok: true, removed: 0 });
    expect(await readAudit(store)).toHaveLength(1);
  });
});
