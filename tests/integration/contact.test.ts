import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { briefForm, nextAddress, postContact, rawRequest, validBrief } from "../support/contact";
import { makeExe, makePdf, makePng } from "../support/files";
import type { HealthBody } from "@/lib/http/responses";
import { FilesystemStore } from "@/lib/store/filesystem";
import { storeUndelivered } from "../support/briefs";
import { findBriefFolder, listInbox, readBriefJson, readDeliveryJson } from "../support/inbox";
import {
  type AppServer,
  startApp,
  startAppExpectingFailure,
  tempDir,
  unwritableInboxDir,
} from "../support/server";

const MiB = 1024 * 1024;

let app: AppServer;
let inbox: string;

beforeAll(async () => {
  inbox = await tempDir();
  app = await startApp({ INBOX_DIR: inbox });
});

afterAll(async () => {
  await app?.stop();
});

async function errorBody(response: Response) {
  return (await response.json()) as {
    ok: boolean;
    error: string;
    message: string;
    fields?: Record<string, string>;
  };
}

function textFile(size: number): Uint8Array {
  const line = new TextEncoder().encode("A line of the project brief.\n");
  const bytes = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += line.length)
    bytes.set(line.subarray(0, size - offset), offset);
  return bytes;
}

describe("POST /api/contact: success", () => {
  it("stores a brief without a file and answers the contract's body and headers", async () => {
    const response = await postContact(app.url, briefForm(validBrief({ company: "", role: "  " })), {
      "user-agent": "integration-test",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("ratelimit-limit")).toBe("5");
    expect(response.headers.get("ratelimit-remaining")).toBe("4");
    expect(Number(response.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
    const body = (await response.json()) as {
      ok: boolean;
      reference: string;
      stored: boolean;
      forwarded: string[];
    };
    expect(body).toEqual({ ok: true, reference: expect.any(String), stored: true, forwarded: [] });

    const folder = await findBriefFolder(inbox, body.reference);
    const today = new Date().toISOString().slice(0, 10).replaceAll("-", "/");
    expect(folder).toBe(`briefs/${today}/${body.reference}`);
    const stored = await readBriefJson(inbox, body.reference);
    expect(stored).toMatchObject({
      reference: body.reference,
      name: "Ada Lovelace",
      email: "ada@example.com",
      company: null,
      role: null,
      projectType: "ai-system",
      budget: "50k-100k",
      timeline: "3-6-months",
      consent: true,
      attachment: null,
      // Human verification is not configured in this suite.
      verification: "off",
      client: { userAgent: "integration-test", origin: null },
    });
    expect(Date.parse(stored.receivedAt as string)).toBeGreaterThan(Date.now() - 60_000);
    expect((stored.client as { ipHash: string }).ipHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("stores an attached PDF byte for byte, with its hash and cleaned original name", async () => {
    const pdf = makePdf("Our project brief");
    const response = await postContact(
      app.url,
      briefForm(validBrief(), { bytes: pdf, name: "../../etc/brief\u202e.pdf", type: "application/pdf" }),
    );
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    const folder = await findBriefFolder(inbox, reference);
    const stored = await readBriefJson(inbox, reference);
    expect(stored.attachment).toEqual({
      filename: "attachment.pdf",
      originalName: "brief.pdf",
      contentType: "application/pdf",
      size: pdf.byteLength,
      sha256: createHash("sha256").update(pdf).digest("hex"),
    });
    const saved = await readFile(join(inbox, folder ?? "", "attachment.pdf"));
    expect(Buffer.compare(saved, Buffer.from(pdf))).toBe(0);
  });

  it("decides the type from the bytes: a PNG sent as application/pdf named .pdf is stored as PNG", async () => {
    const response = await postContact(
      app.url,
      briefForm(validBrief(), { bytes: makePng(8, 8), name: "brief.pdf", type: "application/pdf" }),
    );
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    const stored = await readBriefJson(inbox, reference);
    expect(stored.attachment).toMatchObject({ filename: "attachment.png", contentType: "image/png" });
  });

  it("stores a Markdown file as text/markdown", async () => {
    const response = await postContact(
      app.url,
      briefForm(validBrief(), { bytes: new TextEncoder().encode("# Brief\n\nDetails."), name: "notes.md" }),
    );
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    expect((await readBriefJson(inbox, reference)).attachment).toMatchObject({
      filename: "attachment.md",
      contentType: "text/markdown",
    });
  });

  it("treats the empty file part a browser sends with no file chosen as no file", async () => {
    const form = briefForm(validBrief());
    form.append("brief", new Blob([]), "");
    const response = await postContact(app.url, form);
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    expect((await readBriefJson(inbox, reference)).attachment).toBeNull();
  });

  it("accepts a file of exactly 10 MiB", async () => {
    const response = await postContact(
      app.url,
      briefForm(validBrief(), { bytes: textFile(10 * MiB), name: "big.txt" }),
    );
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    expect((await readBriefJson(inbox, reference)).attachment).toMatchObject({ size: 10 * MiB });
  });

  it("records an empty delivery.json when no channel is configured", async () => {
    const response = await postContact(app.url, briefForm(validBrief()));
    const { reference, forwarded } = (await response.json()) as { reference: string; forwarded: string[] };
    expect(forwarded).toEqual([]);
    expect(await readDeliveryJson(inbox, reference)).toEqual({});
  });

  it("files a filled honeypot under spam/ and answers as usual", async () => {
    const response = await postContact(app.url, briefForm(validBrief({ website: "https://spam.example" })));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { reference: string; forwarded: string[]; stored: boolean };
    expect(body.stored).toBe(true);
    expect(body.forwarded).toEqual([]);
    expect(await findBriefFolder(inbox, body.reference)).toMatch(/^spam\/\d{4}\/\d{2}\/\d{2}\//);
  });

  it("stores 30 parallel briefs under 30 distinct references", async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        postContact(app.url, briefForm(validBrief({ name: `Sender ${i}` }))),
      ),
    );
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as {
      reference: string;
    }[];
    expect(responses.map((response) => response.status)).toEqual(new Array(30).fill(200));
    const references = new Set(bodies.map((body) => body.reference));
    expect(references.size).toBe(30);
    const stored = await Promise.all([...references].map((reference) => readBriefJson(inbox, reference)));
    expect(new Set(stored.map((brief) => brief.name)).size).toBe(30);
  });
});

describe("POST /api/contact: refusals", () => {
  it("answers another method with 405", async () => {
    const response = await fetch(`${app.url}/api/contact`);
    expect(response.status).toBe(405);
  });

  // Every route handler exports only POST: every other method is answered by Next, the same on
  // each of them (the contract leaves 405 to Next).
  it.each(["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"])(
    "answers %s on /api/contact and /api/newsletter as Next does for a POST-only route handler",
    async (method) => {
      const answer = async (path: string) => {
        const response = await fetch(`${app.url}${path}`, { method });
        return {
          status: response.status,
          allow: response.headers.get("allow"),
          body: await response.text(),
        };
      };
      const routeHandler = await answer("/api/contact/upload");
      expect(routeHandler.status).toBe(method === "OPTIONS" ? 204 : 405);
      expect(await answer("/api/contact")).toEqual(routeHandler);
      expect(await answer("/api/newsletter")).toEqual(routeHandler);
    },
  );

  it.each([
    ["a foreign Origin", { origin: "https://evil.example" }],
    ["Origin null", { origin: "null" }],
    ["a cross-site fetch without Origin", { "sec-fetch-site": "cross-site" }],
  ])("refuses %s with 403 and stores nothing", async (_, headers) => {
    const before = await listInbox(inbox);
    const response = await postContact(app.url, briefForm(validBrief()), headers);
    expect(response.status).toBe(403);
    expect(await errorBody(response)).toEqual({
      ok: false,
      error: "cross_origin",
      message: expect.any(String),
    });
    expect(await listInbox(inbox)).toEqual(before);
  });

  it("accepts its own origin", async () => {
    const response = await postContact(app.url, briefForm(validBrief()), {
      origin: app.url,
      "sec-fetch-site": "same-origin",
    });
    expect(response.status).toBe(200);
  });

  it("refuses a body that is not multipart with 415", async () => {
    const response = await postContact(app.url, JSON.stringify(validBrief()), {
      "content-type": "application/json",
    });
    expect(response.status).toBe(415);
    expect((await errorBody(response)).error).toBe("unsupported_media_type");
  });

  it.each([
    ["no boundary", "multipart/form-data", "--x\r\n"],
    [
      "a truncated part",
      "multipart/form-data; boundary=XYZ",
      '--XYZ\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda',
    ],
    [
      "an empty boundary",
      'multipart/form-data; boundary=""',
      '--\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n----\r\n',
    ],
    [
      "a broken part header",
      "multipart/form-data; boundary=XYZ",
      "--XYZ\r\nContent-Disposition\r\n\r\nx\r\n--XYZ--\r\n",
    ],
  ])("refuses a malformed body (%s) with 400", async (_, contentType, body) => {
    const response = await postContact(app.url, body, { "content-type": contentType });
    expect(response.status).toBe(400);
    expect((await errorBody(response)).error).toBe("malformed_body");
  });

  it("reports every invalid field at once with 422", async () => {
    const response = await postContact(
      app.url,
      briefForm({ name: "A", email: "not-an-email", projectType: "castle", description: "too short" }),
    );
    expect(response.status).toBe(422);
    const body = await errorBody(response);
    expect(body.error).toBe("validation_failed");
    expect(Object.keys(body.fields ?? {}).sort()).toEqual(
      ["budget", "consent", "description", "email", "name", "projectType", "timeline"].sort(),
    );
    for (const message of Object.values(body.fields ?? {})) expect(message).toMatch(/\w+.*\./);
  });

  it("refuses bidirectional controls in name, company and role with 422 naming each; the description keeps them", async () => {
    const before = await listInbox(inbox);
    const response = await postContact(
      app.url,
      briefForm(
        validBrief({
          name: "Ann\u202eeeL",
          company: "\u2067Acme\u2069",
          role: "C\u200fTO",
          description: `${validBrief().description} Invoice \u202efdp.exe`,
        }),
      ),
    );
    expect(response.status).toBe(422);
    expect(Object.keys((await errorBody(response)).fields ?? {}).sort()).toEqual(["company", "name", "role"]);
    expect(await listInbox(inbox)).toEqual(before);
  });

  it("refuses a file of 10 MiB + 1 byte with 422 on the brief field", async () => {
    const response = await postContact(
      app.url,
      briefForm(validBrief({ name: "" }), { bytes: textFile(10 * MiB + 1), name: "big.txt" }),
    );
    expect(response.status).toBe(422);
    const body = await errorBody(response);
    expect(body.fields?.brief).toMatch(/larger than 10 MB/);
    expect(body.fields?.name).toBeDefined();
  });

  it("refuses a program disguised as a PDF with 422 and stores nothing", async () => {
    const before = await listInbox(inbox);
    const response = await postContact(
      app.url,
      briefForm(validBrief(), { bytes: makeExe(), name: "brief.pdf", type: "application/pdf" }),
    );
    expect(response.status).toBe(422);
    expect((await errorBody(response)).fields).toEqual({
      brief: expect.stringMatching(/not a supported type/),
    });
    expect(await listInbox(inbox)).toEqual(before);
  });

  it("refuses a 12 MiB body with 413", async () => {
    const response = await postContact(
      app.url,
      briefForm(validBrief(), { bytes: textFile(12 * MiB), name: "huge.txt" }),
    );
    expect(response.status).toBe(413);
    expect((await errorBody(response)).error).toBe("payload_too_large");
  });

  it("refuses an oversized chunked body (no Content-Length) with 413", async () => {
    const boundary = "chunkedboundary";
    const response = await rawRequest(`${app.url}/api/contact`, {
      headers: {
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "transfer-encoding": "chunked",
        "x-forwarded-for": nextAddress(),
      },
      write: (req) => {
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="brief"; filename="a.txt"\r\n\r\n`);
        const chunk = Buffer.alloc(MiB, "a");
        let sent = 0;
        const pump = () => {
          while (sent < 13) {
            sent += 1;
            if (!req.write(chunk)) return void req.once("drain", pump);
          }
          req.end(`\r\n--${boundary}--\r\n`);
        };
        pump();
      },
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ ok: false, error: "payload_too_large" });
  });

  it("answers a declared 60 MiB body with 413 before any of it is sent", async () => {
    const response = await rawRequest(`${app.url}/api/contact`, {
      headers: {
        "content-type": "multipart/form-data; boundary=x",
        "content-length": 60 * MiB,
        "x-forwarded-for": nextAddress(),
      },
      write: (req) => req.flushHeaders(), // headers only; the body never comes
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ error: "payload_too_large" });
  });

  it("limits one address to 5 briefs in the window; the 6th gets 429 with Retry-After", async () => {
    const address = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await postContact(app.url, briefForm(validBrief()), { "x-forwarded-for": address });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);

    const refused = await postContact(app.url, briefForm(validBrief()), { "x-forwarded-for": address });
    expect(refused.status).toBe(429);
    expect((await errorBody(refused)).error).toBe("rate_limited");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 600).toBe(true);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");

    const other = await postContact(app.url, briefForm(validBrief()));
    expect(other.status).toBe(200);
  });

  it("counts invalid requests too, and one IPv6 /64 as one client", async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i++) {
      const response = await postContact(app.url, briefForm({ name: "x" }), {
        "x-forwarded-for": `2001:db8:1:2::${i}`,
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429]);
    const otherPrefix = await postContact(app.url, briefForm({}), { "x-forwarded-for": "2001:db8:1:3::1" });
    expect(otherPrefix.status).toBe(422);
  });
});

describe("uploading ahead of the form, on the filesystem inbox", () => {
  it("POST /api/contact/upload answers 404 upload_unavailable before any other check", async () => {
    const response = await fetch(`${app.url}/api/contact/upload`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: "https://evil.example",
        "x-forwarded-for": nextAddress(),
      },
      body: JSON.stringify({
        type: "blob.generate-client-token",
        payload: { pathname: `staging/${"0".repeat(32)}/brief.pdf`, clientPayload: null, multipart: false },
      }),
    });
    expect(response.status).toBe(404);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await errorBody(response)).toEqual({
      ok: false,
      error: "upload_unavailable",
      message: expect.stringContaining("attach the file to the form"),
    });
  });

  it("briefUpload is 422 on the brief field, and an empty one counts as absent", async () => {
    const refused = await postContact(
      app.url,
      briefForm(validBrief({ briefUpload: `staging/${"0".repeat(32)}/brief.pdf` })),
    );
    expect(refused.status).toBe(422);
    const body = await errorBody(refused);
    expect(Object.keys(body.fields ?? {})).toEqual(["brief"]);
    expect(body.fields?.brief).toMatch(/not available on this server/);

    const empty = await postContact(app.url, briefForm(validBrief({ briefUpload: "" })));
    expect(empty.status).toBe(200);
  });
});

describe("POST /api/contact: the form without JavaScript", () => {
  const accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

  it("redirects (303) a stored brief to the thank-you page with its reference", async () => {
    const response = await fetch(`${app.url}/api/contact`, {
      method: "POST",
      redirect: "manual",
      body: briefForm(validBrief()),
      headers: { accept, "x-forwarded-for": nextAddress() },
    });
    expect(response.status).toBe(303);
    const location = response.headers.get("location") ?? "";
    const reference = /^\/thank-you\?reference=([0-9A-Z-]+)$/.exec(location)?.[1] ?? "";
    expect((await readBriefJson(inbox, reference)).name).toBe("Ada Lovelace");
  });

  it("redirects an invalid brief back to the form with the invalid fields, never what was typed", async () => {
    const response = await fetch(`${app.url}/api/contact`, {
      method: "POST",
      redirect: "manual",
      body: briefForm(validBrief({ email: "secret-but-wrong", description: "short" })),
      headers: { accept, "x-forwarded-for": nextAddress() },
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(
      "/contact?error=validation_failed&invalid=email%2Cdescription#contact",
    );
  });

  it("carries the wait to the form when the limit is reached", async () => {
    const address = nextAddress();
    for (let i = 0; i < 5; i++) {
      await postContact(app.url, briefForm({}), { "x-forwarded-for": address });
    }
    const response = await fetch(`${app.url}/api/contact`, {
      method: "POST",
      redirect: "manual",
      body: briefForm(validBrief()),
      headers: { accept, "x-forwarded-for": address },
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toMatch(/^\/contact\?error=rate_limited&retry=\d+#contact$/);
  });
});

describe("POST /api/contact: storage failure", () => {
  let broken: AppServer;

  beforeAll(async () => {
    broken = await startApp({ INBOX_DIR: await unwritableInboxDir() });
  });

  afterAll(async () => {
    await broken?.stop();
  });

  it("answers 503 storage_unavailable when the inbox cannot be written", async () => {
    const response = await postContact(
      broken.url,
      briefForm(validBrief(), { bytes: makePdf(), name: "brief.pdf" }),
    );
    expect(response.status).toBe(503);
    expect(await errorBody(response)).toEqual({
      ok: false,
      error: "storage_unavailable",
      message: expect.any(String),
    });
  });
});

describe("start-up and health", () => {
  it("reports the embedded drivers without secrets", async () => {
    const response = await fetch(`${app.url}/api/health`);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({
      ok: true,
      inbox: "filesystem",
      ratelimit: "memory",
      verification: "off",
      channels: [],
      deliveries: { retrying: 0, failed: 0 },
    });
  });

  it("counts the due and failed delivery records, each channel once, from their listing", async () => {
    const store = new FilesystemStore(inbox);
    await storeUndelivered(store, "retrying");
    await storeUndelivered(store, "retrying", { channel: "email" });
    await storeUndelivered(store, "failed", { channel: "slack" });
    // The count is kept for 5 s: within a few seconds more it shows the records.
    await expect
      .poll(async () => ((await (await fetch(`${app.url}/api/health`)).json()) as HealthBody).deliveries, {
        timeout: 12_000,
        interval: 500,
      })
      .toEqual({ retrying: 2, failed: 1 });
  });

  it("refuses to start with a malformed variable, naming it", async () => {
    const { code, output } = await startAppExpectingFailure({ CONTACT_RATE_LIMIT: "lots" });
    expect(code).not.toBe(0);
    expect(output).toContain("CONTACT_RATE_LIMIT");
  });
});
