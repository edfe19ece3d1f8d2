import { createHash } from "node:crypto";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { put as clientPut } from "@vercel/blob/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "@/lib/http/errors";
import { BlobStore } from "@/lib/store/blob";
import {
  claimStagedUpload,
  collectStaleUploads,
  issueUploadToken,
  parseUploadTokenRequest,
  STAGED_UPLOAD_NOT_FOUND,
  UPLOAD_TOKEN_VALIDITY_MS,
} from "@/lib/contact/staging";
import type { BlobStandIn } from "../support/blob-standin";
import { withBlobStandIn } from "../support/blob-vitest";
import { makeDocx, makeFileOfSize, makePdf, makePng, makeZip, TEN_MIB } from "../support/files";
import { liveArrayBufferBytes, MiB } from "../support/memory";

/**
 * Upload tokens, claiming staged uploads and collecting stale ones, with the real SDK on both
 * sides against the Blob stand-in: tokens from `handleUpload`, uploads with the client `put` a
 * browser runs, reads and copies through the BlobStore driver.
 */

let standIn: BlobStandIn;
let store: BlobStore;

withBlobStandIn((ready) => (standIn = ready));

const savedTmpdir = process.env.TMPDIR;

beforeEach(() => {
  store = new BlobStore(standIn.token);
});

afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
});

/** A fresh, empty temporary folder, where the store's upload spools now go (`os.tmpdir()`). */
async function spoolFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "claim-spools-"));
  process.env.TMPDIR = folder;
  return folder;
}

const ID = "00112233445566778899aabbccddeeff";
const tokenRequest = new Request("http://127.0.0.1/api/contact/upload", { method: "POST" });

/** A token from the service, then the client upload a browser does with it. */
async function stage(pathname: string, bytes: Uint8Array, contentType = "application/pdf", now = Date.now()) {
  const clientToken = await issueUploadToken(tokenRequest, pathname, standIn.token, now);
  return clientPut(pathname, new Blob([bytes as Uint8Array<ArrayBuffer>]), {
    access: "private",
    token: clientToken,
    contentType,
  });
}

describe("parseUploadTokenRequest", () => {
  const event = (payload: unknown, type = "blob.generate-client-token") => JSON.stringify({ type, payload });

  it("accepts the client's token request for a staged path", () => {
    const body = event({ pathname: `staging/${ID}/brief.pdf`, clientPayload: null, multipart: false });
    expect(parseUploadTokenRequest(body)).toEqual({ pathname: `staging/${ID}/brief.pdf` });
  });

  it.each([
    ["not JSON", "{", "malformed_body"],
    ["JSON that is not a token request", "[]", "malformed_body"],
    ["an upload-completed callback", event({ blob: {} }, "blob.upload-completed"), "malformed_body"],
    ["a pathname that is not a string", event({ pathname: 42 }), "malformed_body"],
    [
      "a path outside staging",
      event({ pathname: "briefs/2026/01/01/REF/attachment.pdf" }),
      "validation_failed",
    ],
    ["a path that climbs", event({ pathname: `staging/${ID}/../../briefs/x.pdf` }), "validation_failed"],
    ["a multipart upload", event({ pathname: `staging/${ID}/b.pdf`, multipart: true }), "validation_failed"],
  ])("refuses %s", (_label, body, code) => {
    let error: unknown;
    try {
      parseUploadTokenRequest(body);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(code);
    if (code === "validation_failed")
      expect(Object.keys((error as ApiError).fields ?? {})).toEqual(["pathname"]);
  });
});

describe("upload tokens", () => {
  it("let a client upload exactly the staged path, private, and nothing else", async () => {
    const pdf = makePdf("staged");
    const result = await stage(`staging/${ID}/brief.pdf`, pdf);
    expect(result.pathname).toBe(`staging/${ID}/brief.pdf`);
    const stored = standIn.objects.get(`staging/${ID}/brief.pdf`);
    expect(stored).toMatchObject({ access: "private", contentType: "application/pdf" });
    expect(Buffer.compare(stored?.body ?? Buffer.alloc(0), Buffer.from(pdf))).toBe(0);

    const upload = standIn.requests.find((request) => request.operation === "put");
    expect(upload?.clientToken).toMatchObject({
      pathname: `staging/${ID}/brief.pdf`,
      maximumSizeInBytes: TEN_MIB,
      addRandomSuffix: false,
      allowOverwrite: false,
    });
    // No completion callback: Vercel could not reach a private deployment's localhost anyway.
    expect(upload?.clientToken?.onUploadCompleted).toBeUndefined();
  });

  it("are valid for ten minutes", async () => {
    const now = Date.now();
    await stage(`staging/${ID}/a.pdf`, makePdf(), "application/pdf", now);
    const payload = standIn.requests.find((request) => request.operation === "put")?.clientToken;
    expect(payload?.validUntil).toBe(now + UPLOAD_TOKEN_VALIDITY_MS);

    const expired = stage(
      `staging/${ID}/b.pdf`,
      makePdf(),
      "application/pdf",
      now - UPLOAD_TOKEN_VALIDITY_MS - 1,
    );
    await expect(expired).rejects.toThrow(/expired/i);
  });

  it("refuse another path, a larger file, an undeclared type and a second upload to the same path", async () => {
    const token = await issueUploadToken(tokenRequest, `staging/${ID}/brief.pdf`, standIn.token);
    const send = (pathname: string, bytes: Uint8Array, contentType = "application/pdf") =>
      clientPut(pathname, new Blob([bytes as Uint8Array<ArrayBuffer>]), {
        access: "private",
        token,
        contentType,
      });

    await expect(send(`staging/${ID}/other.pdf`, makePdf())).rejects.toThrow(/does not match/);
    await expect(send("briefs/2026/01/01/REF/attachment.pdf", makePdf())).rejects.toThrow(/does not match/);
    await expect(send(`staging/${ID}/brief.pdf`, makeFileOfSize("pdf", TEN_MIB + 1))).rejects.toThrow(
      /cannot be greater than/,
    );
    await expect(send(`staging/${ID}/brief.pdf`, makeZip(), "application/zip")).rejects.toThrow(
      /not allowed/,
    );
    expect(standIn.objects.size).toBe(0);

    await send(`staging/${ID}/brief.pdf`, makePdf("first"));
    await expect(send(`staging/${ID}/brief.pdf`, makePdf("second"))).rejects.toThrow(/already exists/);
    expect(standIn.objects.get(`staging/${ID}/brief.pdf`)?.body.toString("latin1")).toContain("first");
  });

  it("cannot be used to read, list, copy or delete", async () => {
    await store.put("briefs/x/brief.json", "{}", "application/json");
    const token = await issueUploadToken(tokenRequest, `staging/${ID}/brief.pdf`, standIn.token);
    const { del, list, copy } = await import("@vercel/blob");
    await expect(list({ token })).rejects.toThrow();
    await expect(del("briefs/x/brief.json", { token })).rejects.toThrow();
    await expect(
      copy("briefs/x/brief.json", `staging/${ID}/brief.pdf`, { access: "private", token }),
    ).rejects.toThrow();
    expect([...standIn.objects.keys()]).toEqual(["briefs/x/brief.json"]);
  });

  it("signed with another store's token are refused", async () => {
    const other = `vercel_blob_rw_${standIn.storeId}_${"f".repeat(24)}`;
    const token = await issueUploadToken(tokenRequest, `staging/${ID}/brief.pdf`, other);
    await expect(
      clientPut(`staging/${ID}/brief.pdf`, new Blob(["%PDF-1.4"]), {
        access: "private",
        token,
        contentType: "application/pdf",
      }),
    ).rejects.toThrow(/Access denied/);
  });
});

describe("claimStagedUpload", () => {
  it("reads a staged PDF back as the same record the multipart path makes, pointing at the staged object", async () => {
    const pdf = makePdf("claimed");
    await stage(`staging/${ID}/Project brief.pdf`, pdf);
    const claimed = await claimStagedUpload(store, `staging/${ID}/Project brief.pdf`);
    expect(claimed).toMatchObject({
      staged: `staging/${ID}/Project brief.pdf`,
      record: {
        filename: "attachment.pdf",
        originalName: "Project brief.pdf",
        contentType: "application/pdf",
        size: pdf.byteLength,
        sha256: createHash("sha256").update(pdf).digest("hex"),
      },
    });
    // The brief's save copies the staged object within the store; nothing of its bytes is carried.
    if (typeof claimed === "string") throw new Error(claimed);
    expect(claimed.chunks).toBeUndefined();
    expect(claimed.upload).toBeUndefined();
  });

  it("reads a staged upload through without holding it: claiming 10 MiB keeps less than 1 MiB", async () => {
    const bytes = makeFileOfSize("pdf", TEN_MIB);
    await store.put(`staging/${ID}/large.pdf`, bytes, "application/pdf");
    const before = await liveArrayBufferBytes();
    const claimed = await claimStagedUpload(store, `staging/${ID}/large.pdf`);
    const held = (await liveArrayBufferBytes()) - before;
    expect(claimed).toMatchObject({
      record: { size: TEN_MIB, sha256: createHash("sha256").update(bytes).digest("hex") },
    });
    expect(held / MiB, "MiB the claim holds").toBeLessThan(1);
  });

  it("types the upload by its bytes: a PNG named .pdf is a PNG, a DOCX is a DOCX", async () => {
    await stage(`staging/${ID}/diagram.pdf`, makePng(8, 8));
    await stage(
      `staging/${ID}/spec.docx`,
      makeDocx({ contentTypesLast: true }),
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    expect(await claimStagedUpload(store, `staging/${ID}/diagram.pdf`)).toMatchObject({
      record: { filename: "attachment.png", contentType: "image/png", originalName: "diagram.pdf" },
    });
    expect(await claimStagedUpload(store, `staging/${ID}/spec.docx`)).toMatchObject({
      record: { filename: "attachment.docx" },
    });
  });

  it.each([
    ["outside staging", "briefs/2026/01/01/K7QM-3XD9-PTWA-84HC/attachment.pdf"],
    ["climbing out of staging", `staging/${ID}/../../briefs/2026/01/01/K7QM-3XD9-PTWA-84HC/attachment.pdf`],
    ["under another prefix", `newsletter/subscribers/${ID}.json`],
  ])("refuses a path %s without asking the store", async (_label, path) => {
    await store.put("briefs/2026/01/01/K7QM-3XD9-PTWA-84HC/attachment.pdf", makePdf(), "application/pdf");
    await store.put(`newsletter/subscribers/${ID}.json`, "{}", "application/json");
    standIn.requests.length = 0;
    expect(await claimStagedUpload(store, path)).toBe(STAGED_UPLOAD_NOT_FOUND);
    expect(standIn.requests).toEqual([]);
  });

  it("refuses a staged path with nothing there", async () => {
    expect(await claimStagedUpload(store, `staging/${ID}/never-uploaded.pdf`)).toBe(STAGED_UPLOAD_NOT_FOUND);
  });

  it("refuses an object over 10 MiB and takes one of exactly 10 MiB", async () => {
    // The token would refuse it; the store is checked all the same.
    await store.put(`staging/${ID}/big.pdf`, makeFileOfSize("pdf", TEN_MIB + 1), "application/pdf");
    expect(await claimStagedUpload(store, `staging/${ID}/big.pdf`)).toBe("The file is larger than 10 MB.");
    await store.put(`staging/${ID}/exact.pdf`, makeFileOfSize("pdf", TEN_MIB), "application/pdf");
    expect(await claimStagedUpload(store, `staging/${ID}/exact.pdf`)).toMatchObject({
      record: { size: TEN_MIB },
    });
    // 20 MiB through the stand-in and back: 2 s on a quiet machine, over 5 at load 10.
  }, 30_000);

  it("refuses a disguised or empty file with the multipart path's messages", async () => {
    await stage(`staging/${ID}/archive.pdf`, makeZip());
    await store.put(`staging/${ID}/empty.pdf`, new Uint8Array(), "application/pdf");
    expect(await claimStagedUpload(store, `staging/${ID}/archive.pdf`)).toMatch(/not a supported type/);
    expect(await claimStagedUpload(store, `staging/${ID}/empty.pdf`)).toMatch(/empty/);
  });

  it("a store that stops sending midway is 503 storage_unavailable within the claim's deadline, and the spool is removed", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    await store.put(`staging/${ID}/stalls.pdf`, makeFileOfSize("pdf", 4 * MiB), "application/pdf");
    standIn.fault = { stallBody: true };
    const spools = await spoolFolder();
    const started = Date.now();
    const failure = await claimStagedUpload(store, `staging/${ID}/stalls.pdf`, 500).catch(
      (caught: unknown) => caught,
    );
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).code).toBe("storage_unavailable");
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(error).toHaveBeenCalledWith(
      `[contact] staged upload staging/${ID}/stalls.pdf could not be read`,
      expect.anything(),
    );
    expect(await readdir(spools)).toEqual([]);
  });

  it("leaves no spool file behind, whether the upload is taken or refused", async () => {
    await stage(`staging/${ID}/taken.pdf`, makePdf());
    await stage(`staging/${ID}/refused.pdf`, makeZip());
    const spools = await spoolFolder();
    expect(await claimStagedUpload(store, `staging/${ID}/taken.pdf`)).toMatchObject({
      record: { size: expect.any(Number) },
    });
    expect(await claimStagedUpload(store, `staging/${ID}/refused.pdf`)).toMatch(/not a supported type/);
    expect(await readdir(spools)).toEqual([]);
  });

  it("a store that does not answer is 503 storage_unavailable within the claim's deadline", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    standIn.fault = { status: 503 };
    const started = Date.now();
    const error = await claimStagedUpload(store, `staging/${ID}/brief.pdf`, 500).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("storage_unavailable");
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe("collectStaleUploads", () => {
  it("removes staged uploads older than an hour and keeps fresh ones and everything outside staging", async () => {
    await store.put(`staging/${ID}/old.pdf`, "old", "application/pdf");
    await store.put(`staging/${ID}/fresh.pdf`, "fresh", "application/pdf");
    await store.put("briefs/2020/01/01/REF/attachment.pdf", "kept", "application/pdf");
    const old = standIn.objects.get(`staging/${ID}/old.pdf`);
    if (old) old.uploadedAt = new Date(Date.now() - 61 * 60_000);
    const ancient = standIn.objects.get("briefs/2020/01/01/REF/attachment.pdf");
    if (ancient) ancient.uploadedAt = new Date("2020-01-01T00:00:00Z");

    const dry = await collectStaleUploads(store, new Date(), { dryRun: true });
    expect(dry.map((upload) => upload.path)).toEqual([`staging/${ID}/old.pdf`]);
    expect(standIn.objects.size).toBe(3);

    const removed: string[] = [];
    const collected = await collectStaleUploads(store, new Date(), {
      onExpired: (upload) => void removed.push(upload.path),
    });
    expect(collected.map((upload) => upload.path)).toEqual([`staging/${ID}/old.pdf`]);
    expect(removed).toEqual([`staging/${ID}/old.pdf`]);
    expect([...standIn.objects.keys()].sort()).toEqual([
      "briefs/2020/01/01/REF/attachment.pdf",
      `staging/${ID}/fresh.pdf`,
    ]);
  });
});
