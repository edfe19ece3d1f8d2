import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, validBrief, type RawResponse } from "../support/contact";
import { makeFileOfSize, makePdf, makePng } from "../support/files";
import { listInbox } from "../support/inbox";
import { type AppServer, startApp, tempDir } from "../support/server";
import { generator, type Random } from "../support/random";

/**
 * Generated bad input against a real `next start`: malformed multipart bodies for /api/contact and
 * random JSON for /api/newsletter. Every answer must be one of the contract's (200 only when the
 * body really is valid), in its JSON shape, within a time bound; the server must stay healthy and
 * log no unexpected error; and the inbox must hold only whole briefs: one per 200, each with its
 * brief.json, every attachment matching the size and hash brief.json records, no temporary files.
 *
 * The generator is seeded: a failure names its seed and case number, and ABUSE_SEED=<n> replays it.
 */

const SEED = Number(process.env.ABUSE_SEED ?? 20_261_122);
const REQUEST_TIMEOUT_MS = 20_000;
const KiB = 1024;

// ---------------------------------------------------------------------------------------------------
// Multipart bodies, built by hand so that every byte can be wrong

interface Part {
  headers: string[];
  body: Uint8Array | string;
}

const field = (name: string, value: Uint8Array | string): Part => ({
  headers: [`Content-Disposition: form-data; name="${name}"`],
  body: value,
});

const filePart = (name: string, filename: string, bytes: Uint8Array, type = "application/pdf"): Part => ({
  headers: [
    `Content-Disposition: form-data; name="${name}"; filename="${filename}"`,
    `Content-Type: ${type}`,
  ],
  body: bytes,
});

function briefParts(overrides: Record<string, string> = {}): Part[] {
  return Object.entries(validBrief(overrides)).map(([name, value]) => field(name, value));
}

function encode(
  boundary: string,
  parts: Part[],
  options: { eol?: string; preamble?: string; epilogue?: string } = {},
): Buffer {
  const eol = options.eol ?? "\r\n";
  const pieces: Buffer[] = [];
  if (options.preamble) pieces.push(Buffer.from(`${options.preamble}${eol}`, "latin1"));
  for (const part of parts) {
    pieces.push(Buffer.from(`--${boundary}${eol}${part.headers.join(eol)}${eol}${eol}`, "latin1"));
    pieces.push(typeof part.body === "string" ? Buffer.from(part.body, "utf8") : Buffer.from(part.body));
    pieces.push(Buffer.from(eol, "latin1"));
  }
  pieces.push(Buffer.from(`--${boundary}--${eol}${options.epilogue ?? ""}`, "latin1"));
  return Buffer.concat(pieces);
}

const multipartType = (boundary: string) => `multipart/form-data; boundary=${boundary}`;

type Status = 200 | 400 | 413 | 415 | 422;

interface AbuseCase {
  kind: string;
  contentType: string | null;
  body: Buffer;
  /** The answers this case may get; most kinds allow exactly one. */
  allowed: readonly Status[];
  /** For a 422: a field `fields` must name. */
  field?: string;
  /** Send with Transfer-Encoding: chunked in pieces of these sizes instead of with a Content-Length. */
  chunks?: number[];
}

const TEXT_FIELDS = ["name", "email", "company", "role", "projectType", "budget", "timeline", "description"];

/** Bytes that are never valid UTF-8 wherever they appear. */
function invalidUtf8(random: Random): Buffer {
  const broken = random.pick([
    [0xff],
    [0xc3, 0x28],
    [0xe2, 0x28, 0xa1],
    [0xed, 0xa0, 0x80],
    [0xc0, 0xaf],
    [0x80],
  ]);
  return Buffer.concat([Buffer.from("Ada "), Buffer.from(broken), Buffer.from(" Lovelace")]);
}

const CASES: Record<string, (random: Random, boundary: string) => AbuseCase> = {
  valid: (random, boundary) => {
    const withFile = random.next() < 0.5;
    const parts = briefParts({ name: `Sender ${random.int(1, 1e6)}` });
    if (withFile) parts.push(filePart("brief", "brief.pdf", makePdf(`Brief ${random.int(1, 1e6)}`)));
    return {
      kind: "valid",
      contentType: multipartType(boundary),
      body: encode(boundary, parts),
      allowed: [200],
    };
  },
  "valid, sent in random chunks": (random, boundary) => {
    const parts = [...briefParts(), filePart("brief", "brief.png", makePng(8, 8), "image/png")];
    const body = encode(boundary, parts);
    const chunks: number[] = [];
    for (let sent = 0; sent < body.length;) {
      const size = Math.min(random.int(1, 97), body.length - sent);
      chunks.push(size);
      sent += size;
    }
    return {
      kind: "valid, sent in random chunks",
      contentType: multipartType(boundary),
      body,
      allowed: [200],
      chunks,
    };
  },
  "preamble and epilogue": (random, boundary) => ({
    kind: "preamble and epilogue",
    contentType: multipartType(boundary),
    body: encode(boundary, briefParts(), {
      preamble: "This is a preamble that parsers must skip.",
      epilogue: `trailing garbage ${random.int(1, 1e6)}\r\n--${boundary}\r\n`,
    }),
    allowed: [200],
  }),
  "quoted boundary with odd characters": (random) => {
    const boundary = `'()+_,-./:=? ${random.int(1, 1e6)}`;
    return {
      kind: "quoted boundary with odd characters",
      contentType: `Multipart/Form-Data; BOUNDARY="${boundary}"`,
      body: encode(boundary, briefParts()),
      allowed: [200],
    };
  },
  "boundary mismatch": (random, boundary) => ({
    kind: "boundary mismatch",
    contentType: multipartType(`${boundary}x`),
    body: encode(boundary, briefParts()),
    allowed: [400],
  }),
  "no boundary parameter": (random, boundary) => ({
    kind: "no boundary parameter",
    contentType: random.pick([
      "multipart/form-data",
      "multipart/form-data;",
      "multipart/form-data; charset=utf-8",
    ]),
    body: encode(boundary, briefParts()),
    allowed: [400],
  }),
  "zero-length boundary": (random) => ({
    kind: "zero-length boundary",
    contentType: random.pick(["multipart/form-data; boundary=", 'multipart/form-data; boundary=""']),
    body: encode("", briefParts()),
    allowed: [400],
  }),
  "gigantic boundary": (random) => {
    const boundary = "B".repeat(random.int(71, 8 * KiB));
    return {
      kind: "gigantic boundary",
      contentType: multipartType(boundary),
      body: encode(boundary, briefParts()),
      // RFC 2046 caps boundaries at 70 characters; a parser may still accept a longer one.
      allowed: [200, 400],
    };
  },
  "truncated body": (random, boundary) => {
    const body = encode(boundary, [...briefParts(), filePart("brief", "brief.pdf", makePdf())]);
    const closing = `--${boundary}--`.length + 2;
    return {
      kind: "truncated body",
      contentType: multipartType(boundary),
      body: body.subarray(0, random.int(0, body.length - closing - 1)),
      allowed: [400],
    };
  },
  "huge part header": (random, boundary) => {
    const parts = briefParts();
    const header = random.pick(["X-Padding: ", 'Content-Disposition: form-data; name="company"; x="']);
    parts.splice(random.int(0, parts.length), 0, {
      headers: [`${header}${"h".repeat(random.int(20 * KiB, 300 * KiB))}`],
      body: "x",
    });
    return {
      kind: "huge part header",
      contentType: multipartType(boundary),
      body: encode(boundary, parts),
      allowed: [400],
    };
  },
  "thousands of fields": (random, boundary) => {
    const parts = briefParts();
    for (let i = random.int(100, 5000); i > 0; i--) parts.push(field(`extra${i}`, "x"));
    return {
      kind: "thousands of fields",
      contentType: multipartType(boundary),
      body: encode(boundary, parts),
      allowed: [413],
    };
  },
  "duplicate field": (random, boundary) => {
    const name = random.pick(TEXT_FIELDS);
    const parts = [...briefParts(), field(name, validBrief()[name] ?? "x")];
    return {
      kind: "duplicate field",
      contentType: multipartType(boundary),
      body: encode(boundary, parts),
      allowed: [422],
      field: name,
    };
  },
  "non-UTF-8 field value": (random, boundary) => {
    const name = random.pick(TEXT_FIELDS);
    const parts = briefParts().map((part) =>
      part.headers[0]?.endsWith(`name="${name}"`) ? field(name, invalidUtf8(random)) : part,
    );
    return {
      kind: "non-UTF-8 field value",
      contentType: multipartType(boundary),
      body: encode(boundary, parts),
      allowed: [422],
      field: name,
    };
  },
  "file part named like a text field": (random, boundary) => {
    const name = random.pick(TEXT_FIELDS);
    const parts = briefParts().filter((part) => !part.headers[0]?.endsWith(`name="${name}"`));
    parts.push(filePart(name, "value.txt", Buffer.from(validBrief()[name] ?? "x"), "text/plain"));
    return {
      kind: "file part named like a text field",
      contentType: multipartType(boundary),
      body: encode(boundary, parts),
      allowed: [422],
      field: name,
    };
  },
  "text part named brief": (random, boundary) => ({
    kind: "text part named brief",
    contentType: multipartType(boundary),
    body: encode(boundary, [
      ...briefParts(),
      field(
        "brief",
        random.pick<Uint8Array | string>(["%PDF-1.4", "brief.pdf", "C:\\brief.pdf", invalidUtf8(random)]),
      ),
    ]),
    allowed: [422],
    field: "brief",
  }),
  "two files": (random, boundary) => ({
    kind: "two files",
    contentType: multipartType(boundary),
    body: encode(boundary, [
      ...briefParts(),
      filePart("brief", "one.pdf", makePdf("one")),
      filePart("brief", "two.pdf", makePdf("two")),
    ]),
    allowed: [422],
    field: "brief",
  }),
  "nested multipart": (random, boundary) => {
    // A whole multipart body, with a program in it, as the content of one part: it must stay opaque
    // bytes of that part, never become parts of the outer form.
    const inner = `inner${random.int(1, 1e6)}`;
    const nested = encode(inner, [
      filePart("brief", "evil.exe", Buffer.from("MZ\x90\x00PE\x00\x00", "latin1")),
    ]);
    const asFile = random.next() < 0.5;
    const part: Part = {
      headers: [
        `Content-Disposition: form-data; name="brief"${asFile ? '; filename="nested.txt"' : ""}`,
        `Content-Type: multipart/mixed; boundary=${inner}`,
      ],
      body: nested,
    };
    return {
      kind: "nested multipart",
      contentType: multipartType(boundary),
      body: encode(boundary, [...briefParts(), part]),
      // As a file: neither a document nor text (it holds NUL bytes); as a field: text sent as brief.
      allowed: [422],
      field: "brief",
    };
  },
  "CRLF injection in part headers": (random, boundary) => {
    const parts = briefParts();
    const injected = random.pick([
      'Content-Disposition: form-data; name="company\r\nX-Injected: yes"',
      'Content-Disposition: form-data; name="company"\r\nContent-Disposition: form-data; name="email"',
      `Content-Disposition: form-data; name="company"\r\n\r\n--${boundary}\r\nContent-Disposition: form-data; name="consent"`,
      'Content-Disposition: form-data; name="brief"; filename="a.txt\r\nContent-Type: text/html"',
      'Content-Disposition: form-data; name="company"\r\n folded: continuation',
    ]);
    parts.push({ headers: [injected], body: "Injected Ltd" });
    return {
      kind: "CRLF injection in part headers",
      contentType: multipartType(boundary),
      body: encode(boundary, parts),
      // Depending on where the break lands: a malformed header, a duplicated field, or an
      // ignored/accepted part; never anything else.
      allowed: [200, 400, 422],
    };
  },
  "LF-only line endings": (random, boundary) => ({
    kind: "LF-only line endings",
    contentType: multipartType(boundary),
    body: encode(boundary, briefParts(), { eol: "\n" }),
    allowed: [400],
  }),
  "field far too long": (random, boundary) => {
    const name = random.pick(["description", "name", "company"]);
    const parts = briefParts().filter((part) => !part.headers[0]?.endsWith(`name="${name}"`));
    parts.push(field(name, "long text ".repeat(random.int(7 * KiB, 20 * KiB))));
    return {
      kind: "field far too long",
      contentType: multipartType(boundary),
      body: encode(boundary, parts),
      allowed: [422],
      field: name,
    };
  },
  "hostile file names": (random, boundary) => {
    const filename = random.pick([
      "../../../../etc/passwd.pdf",
      "..\\..\\windows\\system32\\brief.pdf",
      "brief\u202etxt.pdf",
      "%2e%2e%2fbrief.pdf",
      " . . ",
      "a".repeat(5000),
    ]);
    const part = filePart("brief", Buffer.from(filename, "utf8").toString("latin1"), makePdf());
    return {
      kind: "hostile file names",
      contentType: multipartType(boundary),
      body: encode(boundary, [...briefParts(), part]),
      allowed: [200],
    };
  },
  "file that is not a document": (random, boundary) => ({
    kind: "file that is not a document",
    contentType: multipartType(boundary),
    body: encode(boundary, [
      ...briefParts(),
      filePart(
        "brief",
        "brief.pdf",
        Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), random.bytes(random.int(1, 4096))]),
      ),
    ]),
    allowed: [422],
    field: "brief",
  }),
  "upload reference without the Blob inbox": (random, boundary) => ({
    kind: "upload reference without the Blob inbox",
    contentType: multipartType(boundary),
    body: encode(boundary, [...briefParts(), field("briefUpload", "staging/../../etc/passwd")]),
    allowed: [422],
    field: "brief",
  }),
  "honeypot filled": (random, boundary) => ({
    kind: "honeypot filled",
    contentType: multipartType(boundary),
    body: encode(boundary, [...briefParts(), field("website", `https://spam${random.int(1, 1e6)}.example`)]),
    allowed: [200],
  }),
  "not multipart": (random, boundary) => ({
    kind: "not multipart",
    contentType: random.pick([
      null,
      "text/plain",
      "application/json",
      "multipart/mixed; boundary=x",
      "application/x-www-form-urlencoded",
    ]),
    body: encode(boundary, briefParts()),
    allowed: [415],
  }),
  "random bytes": (random, boundary) => ({
    kind: "random bytes",
    contentType: multipartType(boundary),
    body: random.bytes(random.int(0, 8 * KiB)),
    allowed: [400],
  }),
  "mutated bytes": (random, boundary) => {
    const body = Buffer.from(encode(boundary, [...briefParts(), filePart("brief", "b.pdf", makePdf())]));
    const edits = random.int(1, 8);
    let mutated: Buffer = body;
    for (let i = 0; i < edits; i++) {
      const at = random.int(0, mutated.length - 1);
      const edit = random.pick(["flip", "insert", "delete"] as const);
      if (edit === "flip") mutated[at] = random.int(0, 255);
      else if (edit === "insert")
        mutated = Buffer.concat([
          mutated.subarray(0, at),
          random.bytes(random.int(1, 16)),
          mutated.subarray(at),
        ]);
      else mutated = Buffer.concat([mutated.subarray(0, at), mutated.subarray(at + random.int(1, 16))]);
    }
    return {
      kind: "mutated bytes",
      contentType: multipartType(boundary),
      body: mutated,
      // A mutation can land anywhere, even in a harmless spot (200) or the file's padding.
      allowed: [200, 400, 413, 422],
    };
  },
};

function contactCases(random: Random, count: number): AbuseCase[] {
  const kinds = Object.keys(CASES);
  // Every kind at least once, then random kinds.
  return Array.from({ length: count }, (_, index) => {
    const kind = index < kinds.length ? (kinds[index] as string) : random.pick(kinds);
    const boundary = `----abuse${random.int(0, 2 ** 31)}`;
    return (CASES[kind] as (random: Random, boundary: string) => AbuseCase)(random, boundary);
  });
}

// ---------------------------------------------------------------------------------------------------
// Sending and checking answers

const ERROR_CODES: Record<number, string> = {
  400: "malformed_body",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_failed",
  429: "rate_limited",
};

let addressCounter = 0;
function freshAddress(): string {
  addressCounter += 1;
  return `203.0.${Math.floor(addressCounter / 250) % 250}.${(addressCounter % 250) + 1}`;
}

async function send(
  url: string,
  contentType: string | null,
  body: Buffer,
  chunks?: number[],
): Promise<RawResponse> {
  const headers: Record<string, string | number> = { "x-forwarded-for": freshAddress() };
  if (contentType !== null) headers["content-type"] = contentType;
  if (chunks) headers["transfer-encoding"] = "chunked";
  else headers["content-length"] = body.length;
  return rawRequest(url, {
    headers,
    timeoutMs: REQUEST_TIMEOUT_MS,
    write: (req) => {
      if (!chunks) return void req.end(body);
      let offset = 0;
      const pump = () => {
        const size = chunks.shift();
        if (size === undefined) return void req.end();
        req.write(body.subarray(offset, offset + size));
        offset += size;
        setImmediate(pump);
      };
      pump();
    },
  });
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** Checks the contract's JSON shape for the status, and returns the parsed body. */
function checkShape(response: RawResponse, label: string): Answer {
  expect(response.headers["content-type"], label).toBe("application/json; charset=utf-8");
  expect(response.headers["cache-control"], label).toBe("no-store");
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(response.body) as Record<string, unknown>;
  } catch {
    throw new Error(`${label}: the body is not JSON: ${response.body.slice(0, 200)}`);
  }
  if (response.status === 200) {
    expect(body.ok, label).toBe(true);
  } else {
    expect(body, label).toMatchObject({
      ok: false,
      error: ERROR_CODES[response.status],
      message: expect.any(String),
    });
    expect(String(body.message), label).not.toMatch(/\n\s+at |node_modules|Error:/);
    const keys = Object.keys(body).sort();
    if (response.status === 422) {
      expect(keys, label).toEqual(["error", "fields", "message", "ok"]);
      const fields = body.fields as Record<string, unknown>;
      expect(Object.keys(fields).length, label).toBeGreaterThan(0);
      for (const message of Object.values(fields)) expect(typeof message, label).toBe("string");
    } else {
      expect(keys, label).toEqual(["error", "message", "ok"]);
    }
  }
  return { status: response.status, body };
}

/** Runs `work` over `items`, `concurrency` at a time, in order of the items. */
async function inBatches<T, R>(
  items: T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
) {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += concurrency) {
    const batch = items.slice(start, start + concurrency);
    results.push(...(await Promise.all(batch.map((item, offset) => work(item, start + offset)))));
  }
  return results;
}

// ---------------------------------------------------------------------------------------------------

let app: AppServer;
let inbox: string;
/** References answered 200, with the folder (briefs or spam) they must be in. */
const accepted = new Map<string, "briefs" | "spam">();

beforeAll(async () => {
  console.log(`abuse suite seed: ${SEED} (replay with ABUSE_SEED=${SEED})`);
  inbox = await tempDir();
  // Limits so high the limiter never answers first (the 429 path has its own tests).
  app = await startApp({
    INBOX_DIR: inbox,
    CONTACT_RATE_LIMIT: "999999999/1h",
    NEWSLETTER_RATE_LIMIT: "999999999/1h",
  });
});

afterAll(async () => {
  await app?.stop();
});

describe(`POST /api/contact: generated malformed bodies (seed ${SEED})`, () => {
  const random = generator(SEED);
  const cases = contactCases(random, 400);

  it(`answers each of ${cases.length} generated bodies as the contract says, in time`, async () => {
    const seen = new Map<string, Set<number>>();
    // Every case runs; the failures are reported together, each with what replays it.
    const failures: string[] = [];
    await inBatches(cases, 8, async (abuse, index) => {
      const label = `case #${index} "${abuse.kind}" (seed ${SEED})`;
      try {
        const response = await send(`${app.url}/api/contact`, abuse.contentType, abuse.body, abuse.chunks);
        const answer = checkShape(response, label);
        expect(abuse.allowed, `${label}: answered ${answer.status} ${response.body.slice(0, 300)}`).toContain(
          answer.status,
        );
        if (answer.status === 422 && abuse.field) {
          expect(Object.keys(answer.body.fields as object), label).toContain(abuse.field);
        }
        if (answer.status === 200) {
          expect(answer.body, label).toEqual({
            ok: true,
            reference: expect.any(String),
            stored: true,
            forwarded: [],
          });
          accepted.set(answer.body.reference as string, abuse.kind === "honeypot filled" ? "spam" : "briefs");
        }
        const statuses = seen.get(abuse.kind) ?? new Set<number>();
        statuses.add(answer.status);
        seen.set(abuse.kind, statuses);
      } catch (error) {
        failures.push(
          error instanceof Error && error.message.includes(label)
            ? error.message
            : `${label}: ${String(error)}`,
        );
      }
    });
    expect(failures).toEqual([]);
    // Every kind ran, and the suite exercised every answer it can give.
    expect([...seen.keys()].sort()).toEqual(Object.keys(CASES).sort());
    const all = new Set([...seen.values()].flatMap((statuses) => [...statuses]));
    expect([...all].sort()).toEqual([200, 400, 413, 415, 422]);
  });

  it("answers a declared or streamed body past 11 MiB with 413, and a file of 10 MiB + 1 byte with 422", async () => {
    const boundary = "----abuse-large";
    const oversized = encode(boundary, [
      ...briefParts(),
      filePart("brief", "big.txt", makeFileOfSize("text", 11 * 1024 * KiB), "text/plain"),
    ]);
    const streamed = await send(`${app.url}/api/contact`, multipartType(boundary), oversized, [
      ...Array.from({ length: Math.ceil(oversized.length / (256 * KiB)) }, () => 256 * KiB),
    ]);
    expect(checkShape(streamed, "streamed 11 MiB").status).toBe(413);

    const overFile = encode(boundary, [
      ...briefParts(),
      filePart("brief", "big.txt", makeFileOfSize("text", 10 * 1024 * KiB + 1), "text/plain"),
    ]);
    const answer = checkShape(
      await send(`${app.url}/api/contact`, multipartType(boundary), overFile),
      "10 MiB + 1",
    );
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.fields as object)).toEqual(["brief"]);
  });
});

describe(`POST /api/newsletter: random JSON (seed ${SEED})`, () => {
  const random = generator(SEED + 1);
  const TOPICS = [
    "AI",
    "Engineering",
    "Research",
    "Software",
    "Infrastructure",
    "Emerging technology",
    "Quantum",
    "Gaming technology",
  ];
  const strings = [
    "",
    " ",
    "AI",
    "ai",
    "reader@example.com",
    "@",
    "\u0000",
    "\ud800",
    "\u202e",
    "💌",
    "a".repeat(300),
    "__proto__",
  ];

  function value(depth: number): unknown {
    switch (random.int(0, depth > 3 ? 4 : 6)) {
      case 0:
        return null;
      case 1:
        return random.next() < 0.5;
      case 2:
        return random.pick([0, -1, 1e308, -0, 3.5, Number.MAX_SAFE_INTEGER + 2]);
      case 3:
      case 4:
        return random.pick([...strings, ...TOPICS]);
      case 5:
        return Array.from({ length: random.int(0, 4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: random.int(0, 4) }, () => [
            random.pick(["email", "topics", "__proto__", "constructor", "prototype", "x"]),
            value(depth + 1),
          ]),
        );
    }
  }

  let counter = 0;
  function body(): { text: Buffer; allowed: readonly number[] } {
    counter += 1;
    const email = `abuse${counter}-${SEED}@n${counter}.example`;
    const kind = random.int(0, 9);
    const json = (value: unknown) => Buffer.from(JSON.stringify(value) ?? "null");
    switch (kind) {
      case 0:
        return { text: json(value(0)), allowed: [200, 400, 422] };
      case 1:
        return { text: json({ email: value(1), topics: value(1) }), allowed: [200, 422] };
      case 2: {
        const valid = JSON.stringify({ email, topics: ["AI"] });
        return { text: Buffer.from(valid.slice(0, random.int(0, valid.length - 1))), allowed: [400] };
      }
      case 3:
        // Duplicate keys: JSON.parse keeps the last; both are valid addresses.
        return {
          text: Buffer.from(`{"email":"first-${email}","email":"${email}","topics":["AI"]}`),
          allowed: [200],
        };
      case 4:
        return {
          text: Buffer.concat([
            Buffer.from('{"email":"'),
            invalidUtf8(random),
            Buffer.from('@example.com"}'),
          ]),
          allowed: [400, 422],
        };
      case 5:
        return { text: Buffer.from(`\ufeff${JSON.stringify({ email })}`), allowed: [400] };
      case 6: {
        const depth = random.int(1, 5000);
        return {
          text: Buffer.from("[".repeat(depth) + "]".repeat(depth)).subarray(0, 16 * KiB),
          allowed: [400],
        };
      }
      case 7:
        return {
          text: Buffer.from(JSON.stringify({ email, padding: "x".repeat(random.int(16 * KiB, 64 * KiB)) })),
          allowed: [413],
        };
      case 8:
        return {
          text: Buffer.from(
            JSON.stringify({
              email,
              topics: TOPICS.filter(() => random.next() < 0.4),
              [random.pick(strings)]: value(1),
            }),
          ),
          allowed: [200],
        };
      default:
        return { text: random.bytes(random.int(0, 256)), allowed: [400] };
    }
  }

  it("answers 200, 400, 413 or 422 to 300 random bodies, in the contract's shape", async () => {
    const bodies = Array.from({ length: 300 }, body);
    const seen = new Set<number>();
    await inBatches(bodies, 8, async ({ text, allowed }, index) => {
      const label = `newsletter body #${index} (seed ${SEED}): ${JSON.stringify(text.toString("latin1").slice(0, 120))}`;
      const response = await send(`${app.url}/api/newsletter`, "application/json", text);
      const answer = checkShape(response, label);
      expect(allowed, `${label}: answered ${answer.status}`).toContain(answer.status);
      if (answer.status === 200)
        expect(answer.body.status, label).toMatch(/^(subscribed|already-subscribed)$/);
      seen.add(answer.status);
    });
    expect([...seen].sort()).toEqual([200, 400, 413, 422]);
  });
});

describe("after the abuse", () => {
  it("the server is healthy and logged no unexpected error", async () => {
    const health = await fetch(`${app.url}/api/health`);
    expect(health.status).toBe(200);
    const response = await send(
      `${app.url}/api/contact`,
      multipartType("after"),
      encode("after", briefParts({ name: "After the storm" })),
    );
    expect(response.status).toBe(200);
    accepted.set((JSON.parse(response.body) as { reference: string }).reference, "briefs");
    expect(app.output()).not.toContain("[api] unexpected error");
    expect(app.output()).not.toMatch(/not stored/);
  });

  it("left exactly one whole brief per 200 and nothing else in the inbox", async () => {
    const files = await listInbox(inbox);
    const folders = new Map<string, string[]>();
    for (const file of files) {
      const parts = file.split("/");
      const name = parts.at(-1) ?? "";
      expect(name, file).not.toMatch(/^\.tmp-/);
      if (parts[0] === "newsletter") {
        // A subscriber record, or the mark its change left for the subscribers' index.
        expect(file).toMatch(
          /^newsletter\/(subscribers\/[0-9a-f]{64}|changes\/\d{13}-[0-9a-f]{12}-[0-9a-f]{64})\.json$/,
        );
        continue;
      }
      expect(file).toMatch(
        /^(briefs|spam)\/\d{4}\/\d{2}\/\d{2}\/[0-9A-Z-]+\/(brief\.json|delivery\.json|attachment\.(pdf|docx|png|jpg|txt|md))$/,
      );
      const folder = parts.slice(0, -1).join("/");
      folders.set(folder, [...(folders.get(folder) ?? []), name]);
    }

    const stored = new Map<string, "briefs" | "spam">();
    for (const [folder, names] of folders) {
      expect(names, `${folder} has no brief.json`).toContain("brief.json");
      const brief = JSON.parse(await readFile(join(inbox, folder, "brief.json"), "utf8")) as {
        reference: string;
        attachment: { filename: string; size: number; sha256: string } | null;
      };
      expect(folder.endsWith(`/${brief.reference}`)).toBe(true);
      stored.set(brief.reference, folder.startsWith("spam/") ? "spam" : "briefs");
      // Real briefs also get their delivery record (no channel here: `{}`); honeypot catches do not.
      expect(names.includes("delivery.json"), folder).toBe(folder.startsWith("briefs/"));
      const attachments = names.filter((name) => name !== "brief.json" && name !== "delivery.json");
      if (brief.attachment === null) {
        expect(attachments, folder).toEqual([]);
      } else {
        expect(attachments, folder).toEqual([brief.attachment.filename]);
        const bytes = await readFile(join(inbox, folder, brief.attachment.filename));
        expect(bytes.length, folder).toBe(brief.attachment.size);
        expect(createHash("sha256").update(bytes).digest("hex"), folder).toBe(brief.attachment.sha256);
      }
    }
    expect(new Map([...stored].sort())).toEqual(new Map([...accepted].sort()));

    for (const file of files.filter((path) => path.startsWith("newsletter/subscribers/"))) {
      const record = JSON.parse(await readFile(join(inbox, file), "utf8")) as Record<string, unknown>;
      expect(Object.keys(record).sort()).toEqual([
        "confirmedAt",
        "consent",
        "email",
        "revision",
        "status",
        "subscribedAt",
        "topics",
        "unsubscribedAt",
        "updatedAt",
        "verification",
      ]);
    }
  });
});
