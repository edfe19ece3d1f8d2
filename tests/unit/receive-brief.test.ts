import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CONTACT_FORM_LIMITS, receiveBrief, validateSubmission } from "@/lib/contact";
import { readMultipart } from "@/lib/http/body";
import { ApiError } from "@/lib/http/errors";
import { FilesystemStore } from "@/lib/store/filesystem";
import { type ObjectStore, StoreUnavailableError } from "@/lib/store/types";
import { briefForm, validBrief } from "../support/contact";
import { deliveriesFor } from "../support/deliveries";
import { makePdf } from "../support/files";

/**
 * The whole contact path in process, from a real multipart request to a real filesystem store that
 * fails its second write: the attachment is stored, brief.json is not. (Over HTTP, a disk that fills
 * up at that moment is in tests/integration/store-faults.test.ts.)
 */

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "receive-brief-test-"));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** A real FilesystemStore whose `put` number `failing` (1-based) throws, as a full disk would. */
function failingOnPut(inner: ObjectStore, failing: number) {
  const calls: string[] = [];
  let puts = 0;
  const store: ObjectStore = {
    driver: inner.driver,
    async put(path, body, contentType) {
      puts += 1;
      calls.push(`put ${path.split("/").at(-1)}`);
      if (puts === failing) throw new StoreUnavailableError(`Could not write ${path}`);
      return inner.put(path, body, contentType);
    },
    create: (path, body, contentType) => inner.create(path, body, contentType),
    get: (path) => inner.get(path),
    getStream: (path) => inner.getStream(path),
    beginUpload: () => inner.beginUpload(),
    removeAbandonedUploads: (before) => inner.removeAbandonedUploads(before),
    async putAll(entries) {
      for (const entry of entries) await store.put(entry.path, entry.body, entry.contentType);
    },
    getVersioned: (path) => inner.getVersioned(path),
    putIfVersion: (path, body, contentType, version) => inner.putIfVersion(path, body, contentType, version),
    deleteIfVersion: (path, version) => inner.deleteIfVersion(path, version),
    async delete(path) {
      calls.push(`delete ${path.split("/").at(-1)}`);
      return inner.delete(path);
    },
    list: (prefix) => inner.list(prefix),
    copy: (from, to, contentType) => inner.copy(from, to, contentType),
  };
  return { store, calls };
}

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name);
}

async function submissionWithPdf() {
  const request = new Request("http://studio.test/api/contact", {
    method: "POST",
    body: briefForm(validBrief(), { bytes: makePdf("Our brief"), name: "brief.pdf" }),
  });
  return validateSubmission(await readMultipart(request, CONTACT_FORM_LIMITS));
}

const client = { ipHash: null, userAgent: "unit-test", origin: null };
/** No channel configured: what happens after the commit point is not under test here. */

describe("receiveBrief when the store fails between the attachment and brief.json", () => {
  it("answers 503 storage_unavailable and leaves neither brief.json nor the attachment", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const root = join(dir, "inbox");
    // No channel: delivery.json (`{}`) is written with brief.json, just before it; brief.json fails.
    const { store, calls } = failingOnPut(new FilesystemStore(root), 3);

    const error = await receiveBrief(
      {
        store,
        channels: [],
        acknowledger: null,
        deliveries: deliveriesFor(store).deliveries,
        config: { spamRules: null },
      },
      await submissionWithPdf(),
      client,
      "off",
    ).then(
      () => null,
      (reason: unknown) => reason,
    );

    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("storage_unavailable");
    expect((error as ApiError).status).toBe(503);
    // Everything the save tried to write is removed, brief.json (the commit point) first.
    expect(calls).toEqual([
      "put attachment.pdf",
      "put delivery.json",
      "put brief.json",
      "delete brief.json",
      "delete delivery.json",
      "delete attachment.pdf",
    ]);
    expect(await filesUnder(root)).toEqual([]);
    expect(log).toHaveBeenCalledWith(
      expect.stringMatching(/^\[contact\] brief .+ not stored$/),
      expect.anything(),
    );
  });

  it("stores both when nothing fails (the wrapper itself is sound)", async () => {
    const root = join(dir, "inbox");
    const { store, calls } = failingOnPut(new FilesystemStore(root), 0);
    const { reference } = await receiveBrief(
      {
        store,
        channels: [],
        acknowledger: null,
        deliveries: deliveriesFor(store).deliveries,
        config: { spamRules: null },
      },
      await submissionWithPdf(),
      client,
      "off",
    );
    expect(calls).toEqual(["put attachment.pdf", "put delivery.json", "put brief.json"]);
    expect((await filesUnder(root)).sort()).toEqual(["attachment.pdf", "brief.json", "delivery.json"]);
    expect(reference).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  });
});
