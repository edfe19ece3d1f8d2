import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  multipartBody,
  nextAddress,
  postContact,
  type RawPart,
  textPart,
  validBrief,
} from "../support/contact";
import { makePdf } from "../support/files";
import { findBriefFolder, listInbox, readBriefJson } from "../support/inbox";
import { type AppServer, startApp, tempDir } from "../support/server";

/**
 * Text parts as real clients label them (contract, Robustness): curl, Python and Java send
 * `Content-Type: text/plain; charset=utf-8` on text parts, browsers send no Content-Type at all.
 * Each value is decoded once, from its exact bytes, by the charset it declares; bytes that do not
 * decode are a 422 naming the field, never a value altered with U+FFFD.
 */

const NAME = "José Müller";
const DESCRIPTION = "Wir brauchen ein System für Zürich: naïve café, 東京, and a rocket 🚀 too.";
const BOUNDARY = "------------------------charsets7f3a";

let app: AppServer;
let inbox: string;

beforeAll(async () => {
  inbox = await tempDir();
  app = await startApp({ INBOX_DIR: inbox, CONTACT_RATE_LIMIT: "1000/10m" });
});

afterAll(async () => {
  await app?.stop();
});

/** Every field of a valid brief as text parts, `label(name)` giving each part's extra headers. */
function briefParts(
  label: (name: string, bytes: Buffer) => string[],
  overrides: Record<string, string | Buffer> = {},
): RawPart[] {
  const fields: Record<string, string | Buffer> = {
    ...validBrief({ name: NAME, description: DESCRIPTION }),
    ...overrides,
  };
  return Object.entries(fields).map(([name, value]) => {
    const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value;
    const part = textPart(name, bytes);
    return { ...part, headers: [...part.headers, ...label(name, bytes)] };
  });
}

async function send(parts: RawPart[]): Promise<Response> {
  return postContact(app.url, multipartBody(BOUNDARY, parts), {
    "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
  });
}

async function storedBrief(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json()) as { ok: boolean; reference: string };
  expect(body.ok).toBe(true);
  return readBriefJson(inbox, body.reference);
}

async function fieldErrors(response: Response): Promise<Record<string, string>> {
  const body = (await response.json()) as { error: string; fields?: Record<string, string> };
  expect(body.error).toBe("validation_failed");
  return body.fields ?? {};
}

describe("POST /api/contact: text parts labelled with a charset, as real clients send them", () => {
  it.each<[string, (name: string, bytes: Buffer) => string[]]>([
    // curl -F 'name=José Müller;type=text/plain;charset=utf-8' labels only the parts it is told to.
    [
      "curl",
      (name) => (name === "name" || name === "description" ? ["Content-Type: text/plain;charset=utf-8"] : []),
    ],
    // requests: files={"name": (None, "José Müller", "text/plain; charset=utf-8"), ...}
    ["Python requests", () => ["Content-Type: text/plain; charset=utf-8"]],
    // Apache HttpClient's MultipartEntityBuilder.addTextBody(name, value, ContentType.TEXT_PLAIN)
    [
      "Java (Apache HttpClient)",
      () => ["Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: 8bit"],
    ],
    // OkHttp's MultipartBody.Part.createFormData(name, null, value.toRequestBody("text/plain; charset=utf-8".toMediaType()))
    ["OkHttp", (_, bytes) => ["Content-Type: text/plain; charset=utf-8", `Content-Length: ${bytes.length}`]],
    ["a quoted charset", () => ['Content-Type: text/plain; charset="utf-8"']],
    ["US-ASCII (read as UTF-8)", () => ["Content-Type: text/plain; charset=US-ASCII"]],
    ["no Content-Type, as browsers send", () => []],
  ])("stores the text exactly as %s labels it", async (_, label) => {
    const response = await send(briefParts(label));
    expect(response.status).toBe(200);
    const stored = await storedBrief(response);
    expect(stored.name).toBe(NAME);
    expect(stored.description).toBe(DESCRIPTION);
    expect(stored.company).toBe(validBrief().company);
  });

  it("keeps a file byte for byte when its part, and every text part, names a charset", async () => {
    const pdf = makePdf("Brief für José");
    const parts = briefParts(() => ["Content-Type: text/plain; charset=utf-8"]);
    parts.push({
      headers: [
        'Content-Disposition: form-data; name="brief"; filename="brief.pdf"',
        "Content-Type: application/pdf; charset=iso-8859-1",
      ],
      body: pdf,
    });
    const response = await send(parts);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { reference: string };
    const stored = await readBriefJson(inbox, body.reference);
    expect(stored.name).toBe(NAME);
    expect(stored.attachment).toMatchObject({
      size: pdf.byteLength,
      sha256: createHash("sha256").update(pdf).digest("hex"),
    });
    const folder = await findBriefFolder(inbox, body.reference);
    const saved = await readFile(join(inbox, folder ?? "", "attachment.pdf"));
    expect(Buffer.compare(saved, Buffer.from(pdf))).toBe(0);
  });

  it.each([
    ["iso-8859-1", Buffer.from(NAME, "latin1"), NAME],
    ["windows-1252", Buffer.from([0x80, 0x20, ...Buffer.from("Müller", "latin1")]), "€ Müller"],
    ["utf-16le", Buffer.from(NAME, "utf16le"), NAME],
    ["Shift_JIS", Buffer.from([0x93, 0x8c, 0x8b, 0x9e, 0x20, 0x4a, 0x6f, 0x73, 0x65]), "東京 Jose"],
  ])("decodes a part labelled charset=%s as declared", async (charset, bytes, expected) => {
    const response = await send(
      briefParts((name) => (name === "name" ? [`Content-Type: text/plain; charset=${charset}`] : []), {
        name: bytes,
      }),
    );
    expect(response.status).toBe(200);
    expect((await storedBrief(response)).name).toBe(expected);
  });

  it.each([
    [
      "bytes that are not UTF-8 under charset=utf-8",
      "text/plain; charset=utf-8",
      Buffer.from("Jos\xe9 M\xfcller", "latin1"),
    ],
    [
      "a truncated UTF-8 sequence under charset=UTF-8",
      "text/plain; charset=UTF-8",
      Buffer.from("José M\xc3", "latin1"),
    ],
    ["bytes that are not UTF-8 without a charset", undefined, Buffer.from("Jos\xe9 M\xfcller", "latin1")],
    ["charset=base64", "text/plain; charset=base64", Buffer.from(NAME, "utf8")],
    ["a charset nobody knows", "text/plain; charset=x-no-such-charset", Buffer.from(NAME, "utf8")],
  ])("refuses %s with 422 naming the field, and stores nothing", async (_, contentType, bytes) => {
    const before = await listInbox(inbox);
    const response = await send(
      briefParts((name) => (name === "name" && contentType ? [`Content-Type: ${contentType}`] : []), {
        name: bytes,
      }),
    );
    expect(response.status).toBe(422);
    const fields = await fieldErrors(response);
    expect(Object.keys(fields)).toEqual(["name"]);
    expect(fields.name).toMatch(/UTF-8/);
    expect(await listInbox(inbox)).toEqual(before);
  });
});

describe("POST /api/newsletter: a body that is not UTF-8", () => {
  it("is 400 malformed_body, never read with U+FFFD in it, and stores nothing", async () => {
    const before = await listInbox(inbox);
    // The bad byte sits in a key the newsletter ignores: only a strict reading notices it.
    const body = Buffer.concat([
      Buffer.from(`{"email":"charsets-${Date.now()}@example.com","topics":["AI"],"note":"caf`),
      Buffer.from([0xe9]),
      Buffer.from('"}'),
    ]);
    const response = await fetch(`${app.url}/api/newsletter`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "x-forwarded-for": nextAddress() },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("malformed_body");
    expect(await listInbox(inbox)).toEqual(before);
  });
});
