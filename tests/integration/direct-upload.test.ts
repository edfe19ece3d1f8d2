import { createHash } from "node:crypto";
import { getPayloadFromClientToken, put as clientPut } from "@vercel/blob/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { declaredUploadType, newStagingId, stagedUploadPath } from "@/lib/schemas/staged-upload";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { briefForm, nextAddress, postContact, validBrief } from "../support/contact";
import { makeFileOfSize, makePdf, makePng, makeZip, TEN_MIB } from "../support/files";
import { type AppServer, startApp } from "../support/server";

/**
 * Files uploaded ahead of the form, under `next start` with the Blob inbox: this test plays the
 * browser, asking the app for a token and uploading with the client `put` of `@vercel/blob/client`
 * to the stand-in, then sending the form with `briefUpload`.
 */

const UPLOAD_LIMIT = 4;

let standIn: BlobStandIn;
let app: AppServer;
const savedApiUrl = process.env.VERCEL_BLOB_API_URL;

beforeAll(async () => {
  standIn = await startBlobStandIn();
  // The test's own client uploads, like a browser, to the API the app uses.
  process.env.VERCEL_BLOB_API_URL = standIn.apiUrl;
  app = await startApp({
    ...blobEnv(standIn.token, standIn.origin),
    UPLOAD_RATE_LIMIT: `${UPLOAD_LIMIT}/10m`,
  });
});

afterAll(async () => {
  await app?.stop();
  await standIn?.close();
  if (savedApiUrl === undefined) delete process.env.VERCEL_BLOB_API_URL;
  else process.env.VERCEL_BLOB_API_URL = savedApiUrl;
});

beforeEach(() => {
  standIn.fault = null;
  standIn.requests.length = 0;
});

interface ErrorBody {
  ok: false;
  error: string;
  message: string;
  fields?: Record<string, string>;
}

function tokenEvent(pathname: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: "blob.generate-client-token",
    payload: { pathname, clientPayload: null, multipart: false, ...extra },
  });
}

function requestToken(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${app.url}/api/contact/upload`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", "x-forwarded-for": nextAddress(), ...headers },
  });
}

/** What the form does in the browser: a token for a fresh staging path, then the upload. */
async function stage(bytes: Uint8Array, name: string): Promise<string> {
  const pathname = stagedUploadPath(newStagingId(), name);
  const response = await requestToken(tokenEvent(pathname));
  expect(response.status).toBe(200);
  const { clientToken } = (await response.json()) as { clientToken: string };
  const result = await clientPut(pathname, new Blob([bytes as Uint8Array<ArrayBuffer>]), {
    access: "private",
    token: clientToken,
    contentType: declaredUploadType(name) ?? undefined,
  });
  return result.pathname;
}

function briefWithUpload(pathname: string, extra: Record<string, string> = {}): FormData {
  return briefForm(validBrief({ briefUpload: pathname, ...extra }));
}

const today = () => new Date().toISOString().slice(0, 10).replaceAll("-", "/");

function storedBrief(reference: string): Record<string, unknown> {
  const brief = standIn.objects.get(`briefs/${today()}/${reference}/brief.json`);
  if (!brief) throw new Error(`no brief.json for ${reference}`);
  return JSON.parse(brief.body.toString("utf8")) as Record<string, unknown>;
}

describe("POST /api/contact/upload", () => {
  it("issues a private staging token for exactly the path asked for: 10 MiB, the form's types, 10 minutes", async () => {
    const pathname = stagedUploadPath(newStagingId(), "Project brief.pdf");
    const before = Date.now();
    const response = await requestToken(tokenEvent(pathname), { origin: app.url });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("ratelimit-limit")).toBe(String(UPLOAD_LIMIT));
    expect(response.headers.get("ratelimit-remaining")).toBe(String(UPLOAD_LIMIT - 1));
    const body = (await response.json()) as { ok: boolean; type: string; clientToken: string };
    expect(body).toMatchObject({ ok: true, type: "blob.generate-client-token" });
    expect(body.clientToken).toMatch(new RegExp(`^vercel_blob_client_${standIn.storeId}_`));

    const payload = getPayloadFromClientToken(body.clientToken);
    expect(payload).toMatchObject({
      pathname,
      maximumSizeInBytes: TEN_MIB,
      addRandomSuffix: false,
      allowOverwrite: false,
    });
    expect([...(payload.allowedContentTypes ?? [])].sort()).toEqual(
      [
        "application/pdf",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "image/jpeg",
        "image/png",
        "text/markdown",
        "text/plain",
      ].sort(),
    );
    expect(payload.validUntil).toBeGreaterThanOrEqual(before + 10 * 60_000);
    expect(payload.validUntil).toBeLessThanOrEqual(Date.now() + 10 * 60_000);
    expect(payload.onUploadCompleted).toBeUndefined();
    // Issuing a token touches no store.
    expect(standIn.requests).toEqual([]);
  });

  it.each([
    ["a foreign Origin", { origin: "https://evil.example" }],
    ["Origin null", { origin: "null" }],
    ["a cross-site fetch without Origin", { "sec-fetch-site": "cross-site" }],
  ])("refuses %s with 403 cross_origin and no token", async (_label, headers) => {
    const response = await requestToken(tokenEvent(stagedUploadPath(newStagingId(), "a.pdf")), headers);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ ok: false, error: "cross_origin", message: expect.any(String) });
  });

  it("limits one address to UPLOAD_RATE_LIMIT tokens; the next gets 429 with Retry-After, and the form keeps its own budget", async () => {
    const address = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < UPLOAD_LIMIT; i++) {
      const response = await requestToken(tokenEvent(stagedUploadPath(newStagingId(), "a.pdf")), {
        "x-forwarded-for": address,
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual(new Array(UPLOAD_LIMIT).fill(200));

    const refused = await requestToken(tokenEvent(stagedUploadPath(newStagingId(), "a.pdf")), {
      "x-forwarded-for": address,
    });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as ErrorBody).error).toBe("rate_limited");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 600).toBe(true);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");

    const contact = await postContact(app.url, briefForm(validBrief()), { "x-forwarded-for": address });
    expect(contact.status).toBe(200);
  });

  it.each<[string, string, Record<string, string>, number, string]>([
    [
      "a path outside staging",
      tokenEvent("briefs/2026/01/01/REF/attachment.pdf"),
      {},
      422,
      "validation_failed",
    ],
    [
      "a path that climbs out",
      tokenEvent(`staging/${newStagingId()}/../../briefs/x.pdf`),
      {},
      422,
      "validation_failed",
    ],
    [
      "a multipart upload",
      tokenEvent(stagedUploadPath(newStagingId(), "a.pdf"), { multipart: true }),
      {},
      422,
      "validation_failed",
    ],
    [
      "a completion callback",
      JSON.stringify({ type: "blob.upload-completed", payload: {} }),
      {},
      400,
      "malformed_body",
    ],
    ["a body that is not JSON", "{", {}, 400, "malformed_body"],
    [
      "a body that is not JSON by type",
      tokenEvent("x"),
      { "content-type": "text/plain" },
      415,
      "unsupported_media_type",
    ],
    ["a body over 4 KiB", tokenEvent(`staging/${"a".repeat(5000)}`), {}, 413, "payload_too_large"],
  ])("refuses %s", async (_label, body, headers, status, code) => {
    const response = await requestToken(body, headers);
    expect(response.status).toBe(status);
    const answer = (await response.json()) as ErrorBody;
    expect(answer.error).toBe(code);
    if (status === 422) expect(Object.keys(answer.fields ?? {})).toEqual(["pathname"]);
  });
});

describe("POST /api/contact with briefUpload", () => {
  it("claims a staged PDF: the same bytes in the brief's folder, then brief.json, and the staged object is gone", async () => {
    const pdf = makePdf("Uploaded ahead of the form");
    const staged = await stage(pdf, "Project brief.pdf");
    standIn.requests.length = 0;

    const response = await postContact(app.url, briefWithUpload(staged));
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    const base = `briefs/${today()}/${reference}`;

    expect(standIn.requests.map((request) => `${request.operation} ${request.pathname}`)).toEqual([
      `download ${staged}`,
      // The claim, created only if absent: no second brief can take this upload.
      `put ${staged.slice(0, staged.lastIndexOf("/"))}.claim`,
      `copy ${base}/attachment.pdf`,
      // No channel is configured: delivery.json (`{}`) goes with brief.json, just before it.
      `put ${base}/delivery.json`,
      `put ${base}/brief.json`,
      `delete ${staged}`,
    ]);
    const attachment = standIn.objects.get(`${base}/attachment.pdf`);
    expect(attachment).toMatchObject({ access: "private", contentType: "application/pdf" });
    expect(Buffer.compare(attachment?.body ?? Buffer.alloc(0), Buffer.from(pdf))).toBe(0);
    expect(standIn.objects.has(staged)).toBe(false);
    expect(storedBrief(reference)).toMatchObject({
      reference,
      attachment: {
        filename: "attachment.pdf",
        originalName: "Project brief.pdf",
        contentType: "application/pdf",
        size: pdf.byteLength,
        sha256: createHash("sha256").update(pdf).digest("hex"),
      },
    });
  });

  it("carries a file past Vercel's 4.5 MB body limit while the form itself stays small", async () => {
    const big = makeFileOfSize("pdf", 6 * 1024 * 1024);
    const staged = await stage(big, "large brief.pdf");
    const form = briefWithUpload(staged);
    const formBytes = [...form.entries()].reduce(
      (total, [name, value]) =>
        total + name.length + (typeof value === "string" ? Buffer.byteLength(value) : value.size),
      0,
    );
    expect(formBytes).toBeLessThan(4 * 1024);
    const response = await postContact(app.url, form);
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    expect(storedBrief(reference)).toMatchObject({ attachment: { size: big.byteLength } });
  });

  it("stores a PNG staged as .pdf as a PNG", async () => {
    const png = makePng(16, 16);
    const staged = await stage(png, "diagram.pdf");
    const response = await postContact(app.url, briefWithUpload(staged));
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    const base = `briefs/${today()}/${reference}`;
    expect(storedBrief(reference)).toMatchObject({
      attachment: { filename: "attachment.png", originalName: "diagram.pdf", contentType: "image/png" },
    });
    expect(standIn.objects.get(`${base}/attachment.png`)).toMatchObject({ contentType: "image/png" });
    expect(standIn.objects.has(`${base}/attachment.pdf`)).toBe(false);
  });

  describe("refusals: 422 fields.brief, nothing stored, nothing removed", () => {
    async function expectRefused(form: FormData, message: RegExp): Promise<void> {
      const before = new Map(standIn.objects);
      const response = await postContact(app.url, form);
      expect(response.status).toBe(422);
      const body = (await response.json()) as ErrorBody;
      expect(body).toMatchObject({ ok: false, error: "validation_failed" });
      expect(Object.keys(body.fields ?? {})).toEqual(["brief"]);
      expect(body.fields?.brief).toMatch(message);
      expect([...standIn.objects.keys()].sort()).toEqual([...before.keys()].sort());
      expect(
        standIn.requests.filter((request) => ["put", "copy", "delete"].includes(request.operation)),
      ).toEqual([]);
    }

    it.each([
      ["an earlier brief's attachment", (ref: string) => `briefs/${today()}/${ref}/attachment.pdf`],
      [
        "a climb out of staging",
        (ref: string) => `staging/${"0".repeat(32)}/../../briefs/${today()}/${ref}/attachment.pdf`,
      ],
      ["a subscriber record", () => `newsletter/subscribers/${"a".repeat(64)}.json`],
      ["a staging path without its id", () => "staging/attachment.pdf"],
    ])("a forged path: %s", async (_label, path) => {
      const earlier = await postContact(
        app.url,
        briefForm(validBrief(), { bytes: makePdf("earlier"), name: "earlier.pdf" }),
      );
      const { reference } = (await earlier.json()) as { reference: string };
      standIn.requests.length = 0;
      await expectRefused(briefWithUpload(path(reference)), /could not be found/);
      // The store was not even asked.
      expect(standIn.requests).toEqual([]);
    });

    it("a staged path with nothing there", async () => {
      await expectRefused(
        briefWithUpload(stagedUploadPath(newStagingId(), "gone.pdf")),
        /could not be found/,
      );
    });

    it("a staged object over 10 MiB", async () => {
      // The token refuses such an upload; the claim does not rely on that.
      const path = stagedUploadPath(newStagingId(), "huge.pdf");
      standIn.objects.set(path, {
        pathname: path,
        body: Buffer.from(makeFileOfSize("pdf", TEN_MIB + 1)),
        contentType: "application/pdf",
        access: "private",
        uploadedAt: new Date(),
        etag: '"huge"',
      });
      await expectRefused(briefWithUpload(path), /larger than 10 MB/);
    });

    it("a disguised file: a ZIP staged as .pdf", async () => {
      const staged = await stage(makeZip(), "brief.pdf");
      standIn.requests.length = 0;
      await expectRefused(briefWithUpload(staged), /not a supported type/);
    });

    it("a brief file and an upload in one request", async () => {
      const staged = await stage(makePdf(), "brief.pdf");
      standIn.requests.length = 0;
      const form = briefForm(validBrief({ briefUpload: staged }), { bytes: makePdf(), name: "brief.pdf" });
      await expectRefused(form, /not both/);
    });

    it("two uploads in one request", async () => {
      const first = await stage(makePdf(), "a.pdf");
      const second = await stage(makePdf(), "b.pdf");
      standIn.requests.length = 0;
      const form = briefWithUpload(first);
      form.append("briefUpload", second);
      await expectRefused(form, /one uploaded file/);
    });

    it("with every other invalid field reported at once", async () => {
      const response = await postContact(
        app.url,
        briefForm({ name: "A", briefUpload: "briefs/x/attachment.pdf" }),
      );
      expect(response.status).toBe(422);
      const { fields } = (await response.json()) as ErrorBody;
      expect(Object.keys(fields ?? {})).toEqual(
        expect.arrayContaining(["name", "email", "description", "consent", "brief"]),
      );
    });
  });

  it("a claimed upload cannot be claimed again", async () => {
    const staged = await stage(makePdf(), "once.pdf");
    expect((await postContact(app.url, briefWithUpload(staged))).status).toBe(200);
    const again = await postContact(app.url, briefWithUpload(staged));
    expect(again.status).toBe(422);
  });

  it("of briefs naming one upload at the same moment, exactly one stores it; the others get 422 fields.brief", async () => {
    const staged = await stage(makePdf("claimed once"), "contested.pdf");
    const responses = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        postContact(app.url, briefWithUpload(staged, { name: `Sender ${i}` })),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 422, 422, 422]);
    for (const response of responses.filter((candidate) => candidate.status === 422)) {
      const body = (await response.json()) as ErrorBody;
      expect(Object.keys(body.fields ?? {})).toEqual(["brief"]);
    }
    const winner = responses.find((response) => response.status === 200);
    const { reference } = (await winner?.json()) as { reference: string };
    expect(storedBrief(reference)).toMatchObject({ attachment: { originalName: "contested.pdf" } });
    const attachments = [...standIn.objects.keys()].filter(
      (path) => path.startsWith(`briefs/${today()}/`) && path.endsWith("/attachment.pdf"),
    );
    expect(attachments.filter((path) => standIn.objects.get(path)?.body.includes("claimed once"))).toEqual([
      `briefs/${today()}/${reference}/attachment.pdf`,
    ]);
  });

  it("brief.json refused after the copy: 503, the copy is removed and the staged upload kept for another try", async () => {
    const staged = await stage(makePdf("retry me"), "retry.pdf");
    const before = new Set(standIn.objects.keys());
    standIn.fault = {
      status: 500,
      match: ({ operation, pathname }) => operation === "put" && !!pathname?.endsWith("/brief.json"),
    };
    const response = await postContact(app.url, briefWithUpload(staged));
    expect(response.status).toBe(503);
    expect(((await response.json()) as ErrorBody).error).toBe("storage_unavailable");
    expect(standIn.requests.find((request) => request.operation === "copy")?.status).toBe(200);
    expect(new Set(standIn.objects.keys())).toEqual(before);

    standIn.fault = null;
    const retried = await postContact(app.url, briefWithUpload(staged));
    expect(retried.status).toBe(200);
    expect(standIn.objects.has(staged)).toBe(false);
  });

  it("a store that fails while the upload is read back: 503 within 10 s, nothing stored", async () => {
    const staged = await stage(makePdf(), "unreadable.pdf");
    const before = new Set(standIn.objects.keys());
    standIn.fault = { status: 503 };
    const started = Date.now();
    const response = await postContact(app.url, briefWithUpload(staged));
    expect(response.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(new Set(standIn.objects.keys())).toEqual(before);
    expect(app.output()).toContain(`[contact] staged upload ${staged} could not be read`);
  });
});
