import { copy, head } from "@vercel/blob";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BlobStore } from "@/lib/store/blob";
import { type AttachmentUpload, type BriefRecord, saveBrief } from "@/lib/briefs";
import { replaceIfUnchanged } from "@/lib/store/conditional";
import { type ObjectInfo, ObjectTooLargeError, StoreUnavailableError } from "@/lib/store/types";
import { routeBlobStorageTo } from "../support/blob-routing.mjs";
import type { BlobStandIn } from "../support/blob-standin";
import { withBlobStandIn } from "../support/blob-vitest";
import { freePort } from "../support/server";
import { describeStoreContract } from "../support/store-contract";

/**
 * The Vercel Blob driver through the real @vercel/blob SDK, against the local stand-in: the SDK
 * finds the API through VERCEL_BLOB_API_URL, and its private reads of
 * `<store>.private.blob.vercel-storage.com` are routed to the stand-in by a global dispatcher.
 */

let standIn: BlobStandIn;
let store: BlobStore;

withBlobStandIn((ready) => (standIn = ready));

beforeEach(() => {
  store = new BlobStore(standIn.token);
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function collect(iterable: AsyncIterable<ObjectInfo>): Promise<ObjectInfo[]> {
  const found: ObjectInfo[] = [];
  for await (const info of iterable) found.push(info);
  return found;
}

/** Waits until `check` passes (it throws until then), for at most `ms`. */
async function eventually(check: () => void, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** How long `promise` takes to settle, and how. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; error: unknown }> {
  const started = Date.now();
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  return { ms: Date.now() - started, error };
}

describe("BlobStore", () => {
  describeStoreContract(() => store);

  it("stores every object private, at exactly its path, with its content type", async () => {
    await store.put("briefs/x/attachment.pdf", [new TextEncoder().encode("%PDF-1.7")], "application/pdf");
    await store.create("newsletter/subscribers/abc.json", "{}", "application/json");

    expect(
      [...standIn.objects.values()].map(({ pathname, access, contentType }) => ({
        pathname,
        access,
        contentType,
      })),
    ).toEqual([
      { pathname: "briefs/x/attachment.pdf", access: "private", contentType: "application/pdf" },
      { pathname: "newsletter/subscribers/abc.json", access: "private", contentType: "application/json" },
    ]);
    const writes = standIn.requests.filter((request) => request.operation === "put");
    expect(writes.map((request) => request.headers["x-add-random-suffix"])).toEqual(["0", "0"]);
    // put overwrites; create must not.
    expect(writes.map((request) => request.headers["x-allow-overwrite"])).toEqual(["1", "0"]);

    const metadata = await head("briefs/x/attachment.pdf", { token: standIn.token });
    expect(metadata).toMatchObject({
      pathname: "briefs/x/attachment.pdf",
      size: 8,
      contentType: "application/pdf",
    });
    expect(new URL(metadata.url).hostname).toBe(`${standIn.storeId}.private.blob.vercel-storage.com`);
  });

  it("conditional writes and deletes name the blob's ETag in x-if-match", async () => {
    await store.put("v/x.json", "one", "application/json");
    const read = await store.getVersioned("v/x.json");
    expect(read?.version).toBe(standIn.objects.get("v/x.json")?.etag);
    expect(await store.putIfVersion("v/x.json", "two", "application/json", read?.version ?? "")).toBe(true);
    const now = standIn.objects.get("v/x.json")?.etag ?? "";
    expect(await store.deleteIfVersion("v/x.json", now)).toBe(true);
    const conditional = standIn.requests.filter((request) => request.headers["x-if-match"] !== undefined);
    expect(
      conditional.map((request) => [request.operation, request.headers["x-if-match"], request.status]),
    ).toEqual([
      ["put", read?.version, 200],
      ["delete", now, 200],
    ]);
  });

  it("a conditional write whose answer was lost is retried, meets itself, and is recognised as its own", async () => {
    await store.put("v/x.json", "one", "application/json");
    const read = await store.getVersioned("v/x.json");
    standIn.fault = {
      dropAfterCommit: true,
      match: ({ operation, pathname }) => operation === "put" && pathname === "v/x.json",
    };
    const body = '{"revision":"mine"}';
    // The store alone cannot tell: the retry finds the blob changed (by the first attempt).
    expect(await replaceIfUnchanged(store, "v/x.json", read?.version ?? "", body, "application/json")).toBe(
      true,
    );
    const puts = standIn.requests.filter(
      (request) => request.operation === "put" && request.pathname === "v/x.json",
    );
    expect(puts.map((request) => request.status)).toEqual([200, -1, 412]);
    expect(standIn.objects.get("v/x.json")?.body.toString()).toBe(body);

    // Another writer's change is not mistaken for ours.
    standIn.fault = null;
    expect(
      await replaceIfUnchanged(
        store,
        "v/x.json",
        read?.version ?? "",
        '{"revision":"late"}',
        "application/json",
      ),
    ).toBe(false);
  });

  it("reads private blobs from the store's private host, with the token", async () => {
    await store.put("a/b.json", '{"ok":true}', "application/json");
    expect(Buffer.from((await store.get("a/b.json")) ?? []).toString()).toBe('{"ok":true}');
    const download = standIn.requests.find((request) => request.operation === "download");
    expect(download).toMatchObject({
      host: `${standIn.storeId}.private.blob.vercel-storage.com`,
      pathname: "a/b.json",
      status: 200,
    });
    expect(download?.headers.authorization).toBe(`Bearer ${standIn.token}`);
  });

  it("lists across pages when the store pages its answers", async () => {
    standIn.maxPageSize = 2;
    const paths = ["p/1", "p/2", "p/3", "p/4", "p/5"];
    for (const path of paths) await store.put(path, path, "text/plain");
    expect((await collect(store.list("p/"))).map((info) => info.path)).toEqual(paths);
    expect(standIn.requests.filter((request) => request.operation === "list")).toHaveLength(3);
  });

  it("copy is one server-side request: private, at exactly its path, with the given content type", async () => {
    await store.put("staging/0123/upload.pdf", "\x89PNG", "application/pdf");
    standIn.requests.length = 0;
    await store.copy("staging/0123/upload.pdf", "briefs/x/attachment.png", "image/png");
    expect(standIn.requests.map((request) => `${request.operation} ${request.pathname}`)).toEqual([
      "copy briefs/x/attachment.png",
    ]);
    expect(standIn.requests[0]?.headers).toMatchObject({
      "x-vercel-blob-access": "private",
      "x-add-random-suffix": "0",
      "x-content-type": "image/png",
    });
    expect(standIn.objects.get("briefs/x/attachment.png")).toMatchObject({
      access: "private",
      contentType: "image/png",
    });
  });

  it("get with maxBytes refuses an object whose length is over the bound without reading it", async () => {
    await store.put("staging/0123/big.pdf", new Uint8Array(64 * 1024), "application/pdf");
    standIn.requests.length = 0;
    const refused = await store
      .get("staging/0123/big.pdf", { maxBytes: 1024 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ObjectTooLargeError);
    expect((refused as ObjectTooLargeError).size).toBe(64 * 1024);
    expect(standIn.requests.map((request) => request.operation)).toEqual(["download"]);
  });

  it("the stand-in copies like the API: the copy is a private object of its own", async () => {
    await store.put("staging/upload.pdf", "%PDF", "application/pdf");
    await copy("staging/upload.pdf", "briefs/x/attachment.pdf", { access: "private", token: standIn.token });
    expect(Buffer.from((await store.get("briefs/x/attachment.pdf")) ?? []).toString()).toBe("%PDF");
    expect(standIn.objects.get("briefs/x/attachment.pdf")?.access).toBe("private");
  });

  describe("failures", () => {
    it("a store answering 5xx is retried, then given up on at the deadline with StoreUnavailableError", async () => {
      standIn.fault = { status: 503 };
      const bounded = new BlobStore(standIn.token, { callTimeoutMs: 2_500 });
      const { ms, error } = await timed(bounded.put("f/x.json", "{}", "application/json"));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(ms).toBeGreaterThanOrEqual(2_400);
      expect(ms).toBeLessThan(3_500);
      // The SDK retried (after 1 s) before the deadline cut it short.
      expect(
        standIn.requests.filter((request) => request.pathname === "f/x.json").length,
      ).toBeGreaterThanOrEqual(2);
      expect(standIn.objects.size).toBe(0);
    });

    it("the caller's signal ends a call early", async () => {
      standIn.fault = { status: 500 };
      const { ms, error } = await timed(
        store.create("f/y.json", "{}", "application/json", { signal: AbortSignal.timeout(400) }),
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(((error as Error).cause as Error).message).toBe("Could not create f/y.json before the deadline");
      expect(ms).toBeLessThan(1_500);
    });

    it("a store with nothing listening fails every operation with StoreUnavailableError, in bounded time", async () => {
      const port = await freePort();
      process.env.VERCEL_BLOB_API_URL = `http://127.0.0.1:${port}/api/blob`;
      const restore = routeBlobStorageTo(`http://127.0.0.1:${port}`);
      try {
        const dead = new BlobStore(standIn.token, { callTimeoutMs: 1_500 });
        const results = await Promise.all([
          timed(dead.put("d/x", "x", "text/plain")),
          timed(dead.create("d/y", "y", "text/plain")),
          timed(dead.get("d/x")),
          timed(dead.delete("d/x")),
          timed(collect(dead.list("d/"))),
        ]);
        for (const { ms, error } of results) {
          expect(error).toBeInstanceOf(StoreUnavailableError);
          expect(ms).toBeLessThan(2_500);
        }
      } finally {
        restore();
        process.env.VERCEL_BLOB_API_URL = standIn.apiUrl;
      }
    });

    it("a refused token is not retried: StoreUnavailableError at once", async () => {
      const wrong = new BlobStore(`vercel_blob_rw_${standIn.storeId}_wrongsecret`);
      const { ms, error } = await timed(wrong.put("t/x", "x", "text/plain"));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(ms).toBeLessThan(900);
      expect(standIn.requests).toHaveLength(1);
    });

    it("an upload's commit whose answer was lost is sent again, whole, read from its spool file again", async () => {
      const whole = Buffer.alloc(3 * 1024 * 1024);
      for (let i = 0; i < whole.length; i += 1) whole[i] = (i * 13 + (i >> 11)) & 0xff;
      const upload = await store.beginUpload();
      await upload.write(whole);
      let puts = 0;
      standIn.fault = {
        dropAfterCommit: true,
        match: ({ operation }) => operation === "put" && ++puts === 1,
      };
      await upload.commit("u/x/attachment.pdf", "application/pdf");
      expect(standIn.requests.map((request) => request.status)).toEqual([-1, 200]);
      expect(standIn.objects.get("u/x/attachment.pdf")?.body.equals(whole)).toBe(true);
    });

    it("a failing read is StoreUnavailableError, not a missing object", async () => {
      await store.put("r/x", "x", "text/plain");
      standIn.fault = { status: 500, match: ({ operation }) => operation === "download" };
      await expect(store.get("r/x")).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  });
});

describe("saveBrief on Vercel Blob", () => {
  const record: BriefRecord = {
    reference: "K7QM-3XD9-PTWA-84HC",
    receivedAt: "2026-11-22T08:15:00.000Z",
    name: "Ann Lee",
    email: "ann@example.com",
    company: null,
    role: null,
    projectType: "ai-system",
    budget: "undecided",
    timeline: "exploring",
    description: "We would like to explore an AI system for our support team.",
    consent: true,
    attachment: null,
    verification: "off",
    attribution: null,
    client: { ipHash: null, userAgent: null, origin: null },
  };
  const upload: AttachmentUpload = {
    chunks: [new TextEncoder().encode("%PDF-1.7\n"), new TextEncoder().encode("%%EOF\n")],
    record: {
      filename: "attachment.pdf",
      originalName: "b.pdf",
      contentType: "application/pdf",
      size: 15,
      sha256: "0",
    },
  };
  const base = "briefs/2026/11/22/K7QM-3XD9-PTWA-84HC";
  const deadlines = { saveMs: 2_500, cleanupMs: 1_500 };

  it("writes the attachment, then brief.json, both private", async () => {
    await saveBrief(store, "briefs", { ...record, attachment: upload.record }, upload, deadlines);
    expect(standIn.requests.map((request) => `${request.operation} ${request.pathname}`)).toEqual([
      `put ${base}/attachment.pdf`,
      `put ${base}/brief.json`,
    ]);
    expect(standIn.objects.get(`${base}/attachment.pdf`)?.body.toString()).toBe("%PDF-1.7\n%%EOF\n");
    expect(JSON.parse(standIn.objects.get(`${base}/brief.json`)?.body.toString() ?? "")).toMatchObject({
      reference: record.reference,
      attachment: upload.record,
    });
    expect([...standIn.objects.values()].every((blob) => blob.access === "private")).toBe(true);
  });

  it("when brief.json cannot be written, the attachment that landed is removed", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    standIn.fault = {
      status: 503,
      match: ({ operation, pathname }) => operation === "put" && pathname === `${base}/brief.json`,
    };
    const { ms, error } = await timed(saveBrief(store, "briefs", record, upload, deadlines));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(ms).toBeLessThan(deadlines.saveMs + deadlines.cleanupMs + 500);
    expect([...standIn.objects.keys()]).toEqual([]);
  });

  it("when brief.json landed but its answer was lost, it is removed as well: no brief is left half-saved", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    standIn.fault = {
      dropAfterCommit: true,
      match: ({ operation, pathname }) => operation === "put" && pathname === `${base}/brief.json`,
    };
    const { error } = await timed(saveBrief(store, "briefs", record, upload, deadlines));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    // It was written (at least once) before the connection dropped...
    expect(
      standIn.requests.filter((request) => request.pathname === `${base}/brief.json` && request.status === -1)
        .length,
    ).toBeGreaterThanOrEqual(1);
    // ...and the cleanup removed it, commit point first, then the attachment.
    expect([...standIn.objects.keys()]).toEqual([]);
    const deletes = standIn.requests.filter((request) => request.operation === "delete");
    expect(deletes.map((request) => request.pathname)).toEqual([
      `${base}/brief.json`,
      `${base}/attachment.pdf`,
    ]);
  });

  it("a brief.json the store accepts after the driver stopped waiting for it is undone once it has landed", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    // The driver leaves a write 1 s to land, then gives up on it; the store takes it at 2 s.
    const impatient = new BlobStore(standIn.token, { lateWriteLimitMs: 1_000, lateWriteGraceMs: 3_000 });
    standIn.fault = {
      commitAfterMs: 2_000,
      match: ({ operation, pathname }) => operation === "put" && pathname === `${base}/brief.json`,
    };
    const { error } = await timed(
      saveBrief(impatient, "briefs", record, upload, { saveMs: 500, cleanupMs: 1_000 }),
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);

    const landed = () =>
      standIn.requests.some(
        (request) =>
          request.pathname === `${base}/brief.json` && request.operation === "put" && request.status === 200,
      );
    await eventually(() => expect(landed()).toBe(true), 5_000);
    expect(standIn.objects.has(`${base}/brief.json`)).toBe(true);
    // Removed again after it landed: nothing of the brief the caller was told had failed remains.
    await eventually(() => expect([...standIn.objects.keys()]).toEqual([]), 10_000);
  }, 20_000);
});
