import { createHmac } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextAddress, rawRequest } from "../support/contact";
import { listInbox } from "../support/inbox";
import { postNewsletter, readSubscriber, subscriberFile } from "../support/newsletter";
import { type AppServer, startApp, tempDir, unwritableInboxDir } from "../support/server";

const KiB = 1024;
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

let app: AppServer;
let inbox: string;
/** Known here, so a consent's client hash can be checked. */
const SALT = "newsletter-test-salt";
const clientHash = (address: string) => createHmac("sha256", SALT).update(address).digest("hex");

beforeAll(async () => {
  inbox = await tempDir();
  app = await startApp({ INBOX_DIR: inbox, IP_HASH_SALT: SALT });
});

afterAll(async () => {
  await app?.stop();
});

interface ErrorBody {
  ok: boolean;
  error: string;
  message: string;
  fields?: Record<string, string>;
}

async function errorBody(response: Response): Promise<ErrorBody> {
  return (await response.json()) as ErrorBody;
}

let addressCounter = 0;
/** A fresh address at a domain of its own, so tests never share a subscriber. */
function freshEmail(local = "reader"): string {
  addressCounter += 1;
  return `${local}@n${addressCounter}-${Date.now().toString(36)}.example`;
}

/** A JSON body of exactly `size` bytes: a valid request padded through a key the route ignores. */
function paddedBody(size: number): string {
  const base = JSON.stringify({ email: freshEmail(), padding: "" });
  return base.replace('"padding":""', `"padding":"${"x".repeat(size - base.length)}"`);
}

describe("POST /api/newsletter: subscribing", () => {
  it("subscribes a new address: the contract's body, headers and stored record", async () => {
    const email = freshEmail();
    const before = Date.now();
    const response = await postNewsletter(app.url, { email, topics: ["AI", "Quantum"] });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("ratelimit-limit")).toBe("10");
    expect(response.headers.get("ratelimit-remaining")).toBe("9");
    expect(Number(response.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
    expect(await response.json()).toEqual({ ok: true, status: "subscribed" });

    const record = await readSubscriber(inbox, email);
    // Single opt-in (NEWSLETTER_DOUBLE_OPT_IN unset): confirmed at once.
    expect(record).toEqual({
      email,
      topics: ["AI", "Quantum"],
      status: "confirmed",
      subscribedAt: expect.any(String),
      updatedAt: record.subscribedAt,
      // Human verification is not configured in this suite.
      verification: "off",
      confirmedAt: record.subscribedAt,
      unsubscribedAt: null,
      consent: {
        at: record.subscribedAt,
        method: "single",
        // A script's request: no Origin, no Sec-Fetch-Site.
        site: "unknown",
        ipHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        verification: "off",
      },
      revision: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const subscribedAt = Date.parse(record.subscribedAt as string);
    expect(subscribedAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(subscribedAt).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("answers a repeat with already-subscribed (200) and changes nothing when nothing is new", async () => {
    const email = freshEmail();
    await postNewsletter(app.url, { email, topics: ["Research"] });
    const before = await readFile(subscriberFile(inbox, email), "utf8");

    for (const body of [{ email }, { email, topics: ["Research"] }, { email, topics: [] }]) {
      const response = await postNewsletter(app.url, body);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("ratelimit-limit")).toBe("10");
      expect(await response.json()).toEqual({ ok: true, status: "already-subscribed" });
    }
    expect(await readFile(subscriberFile(inbox, email), "utf8")).toBe(before);
  });

  it("subscribes without topics", async () => {
    const email = freshEmail();
    const response = await postNewsletter(app.url, { email });
    expect(await response.json()).toEqual({ ok: true, status: "subscribed" });
    expect((await readSubscriber(inbox, email)).topics).toEqual([]);
  });

  it("accepts every topic of the list", async () => {
    const email = freshEmail();
    const response = await postNewsletter(app.url, { email, topics: TOPICS });
    expect(response.status).toBe(200);
    expect((await readSubscriber(inbox, email)).topics).toEqual(TOPICS);
  });

  it("treats the address case-insensitively and keeps the form first given", async () => {
    const domain = freshEmail().split("@")[1];
    const first = `Ada@Example-${domain}`;
    const second = `ada@example-${domain}`;
    const subscribed = await postNewsletter(app.url, { email: first });
    expect(await subscribed.json()).toEqual({ ok: true, status: "subscribed" });
    const again = await postNewsletter(app.url, { email: second, topics: ["Software"] });
    expect(await again.json()).toEqual({ ok: true, status: "already-subscribed" });
    const shouting = await postNewsletter(app.url, { email: `  ${first.toUpperCase()}  ` });
    expect(await shouting.json()).toEqual({ ok: true, status: "already-subscribed" });

    expect(subscriberFile(inbox, first)).toBe(subscriberFile(inbox, second));
    expect(await readSubscriber(inbox, second)).toMatchObject({ email: first, topics: ["Software"] });
  });

  it("trims the address before storing it", async () => {
    const email = freshEmail();
    await postNewsletter(app.url, { email: `\t ${email} \n` });
    expect((await readSubscriber(inbox, email)).email).toBe(email);
  });

  it("merges topics into a union, moving updatedAt and keeping subscribedAt", async () => {
    const email = freshEmail();
    await postNewsletter(app.url, { email, topics: ["AI", "Research"] });
    const first = await readSubscriber(inbox, email);
    await new Promise((resolve) => setTimeout(resolve, 20)); // so the new updatedAt can differ

    const response = await postNewsletter(app.url, { email, topics: ["Quantum", "AI", "Gaming technology"] });
    expect(await response.json()).toEqual({ ok: true, status: "already-subscribed" });

    const merged = await readSubscriber(inbox, email);
    expect(merged).toEqual({
      email,
      topics: ["AI", "Research", "Quantum", "Gaming technology"],
      status: "confirmed",
      subscribedAt: first.subscribedAt,
      updatedAt: expect.any(String),
      verification: "off",
      confirmedAt: first.subscribedAt,
      unsubscribedAt: null,
      // The consent given by the first request stands.
      consent: first.consent,
      revision: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(Date.parse(merged.updatedAt as string)).toBeGreaterThan(Date.parse(first.updatedAt as string));
    expect(merged.revision).not.toBe(first.revision);
  });

  it("records the consent's evidence: the form's page, the client's salted hash; a bad page is dropped, never refused", async () => {
    const email = freshEmail();
    const response = await postNewsletter(
      app.url,
      { email, page: "/journal/on-quantum?utm_source=mastodon" },
      { "x-forwarded-for": "203.0.113.77" },
    );
    expect(await response.json()).toEqual({ ok: true, status: "subscribed" });
    const record = await readSubscriber(inbox, email);
    expect(record.consent).toEqual({
      at: record.subscribedAt,
      method: "single",
      page: "/journal/on-quantum?utm_source=mastodon",
      site: "unknown",
      ipHash: clientHash("203.0.113.77"),
      verification: "off",
    });
    expect(JSON.stringify(record)).not.toContain("203.0.113.77");

    for (const page of [`/${"x".repeat(500)}`, "/a\r\nSet-Cookie: x=1", 42]) {
      const other = freshEmail();
      const accepted = await postNewsletter(app.url, { email: other, page });
      expect(await accepted.json()).toEqual({ ok: true, status: "subscribed" });
      const consent = (await readSubscriber(inbox, other)).consent as Record<string, unknown>;
      expect(consent).not.toHaveProperty("page");
    }
  });

  it("gives exactly one 'subscribed' to 20 concurrent first requests for one address", async () => {
    const email = freshEmail();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postNewsletter(app.url, { email: i % 2 ? email : email.toUpperCase(), topics: ["AI"] }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(new Array(20).fill(200));
    const statuses = await Promise.all(
      responses.map(async (response) => ((await response.json()) as { status: string }).status),
    );
    expect(statuses.filter((status) => status === "subscribed")).toHaveLength(1);
    expect(statuses.filter((status) => status === "already-subscribed")).toHaveLength(19);

    // One record, under the lowercased address's name, and no temporary file left behind.
    const files = (await listInbox(inbox)).filter((file) => file.startsWith("newsletter/"));
    const record = relative(inbox, subscriberFile(inbox, email));
    expect(files.filter((file) => file === record)).toEqual([record]);
    // Beside it, only the marks each request left for the subscribers' index.
    expect(
      files.every((file) =>
        /^newsletter\/(subscribers\/[0-9a-f]{64}|changes\/\d{13}-[0-9a-f]{12}-[0-9a-f]{64})\.json$/.test(
          file,
        ),
      ),
    ).toBe(true);
    expect(await readSubscriber(inbox, email)).toMatchObject({ topics: ["AI"] });
  });

  it("ignores keys it does not know", async () => {
    const email = freshEmail();
    const response = await postNewsletter(app.url, { email, name: "Ada", consent: true, topics: ["AI"] });
    expect(response.status).toBe(200);
    expect(Object.keys(await readSubscriber(inbox, email)).sort()).toEqual(
      [
        "email",
        "revision",
        "subscribedAt",
        "topics",
        "updatedAt",
        "status",
        "confirmedAt",
        "unsubscribedAt",
        "verification",
        "consent",
      ].sort(),
    );
    // The record's consent is its evidence, never what the body said.
    expect((await readSubscriber(inbox, email)).consent).toMatchObject({ method: "single" });
  });

  it.each(["application/json; charset=utf-8", "application/json;charset=UTF-8", "Application/JSON"])(
    "accepts the media type %j",
    async (contentType) => {
      const response = await postNewsletter(
        app.url,
        { email: freshEmail() },
        { "content-type": contentType },
      );
      expect(response.status).toBe(200);
    },
  );

  it("accepts a body of exactly 16 KiB", async () => {
    const body = paddedBody(16 * KiB);
    expect(Buffer.byteLength(body)).toBe(16 * KiB);
    const response = await postNewsletter(app.url, body);
    expect(response.status).toBe(200);
  });
});

describe("POST /api/newsletter: refusals", () => {
  it.each(["GET", "PUT", "DELETE"])("answers %s with 405", async (method) => {
    const response = await fetch(`${app.url}/api/newsletter`, { method });
    expect(response.status).toBe(405);
  });

  it.each([
    ["empty", ""],
    ["not JSON", "email=ada@example.com"],
    ["truncated", '{"email":"ada@example.com","topics":["AI"'],
    ["a trailing comma", '{"email":"ada@example.com",}'],
    ["a byte-order mark", '\ufeff{"email":"ada@example.com"}'],
  ])("refuses a body that is not JSON (%s) with 400", async (_label, body) => {
    const response = await postNewsletter(app.url, body);
    expect(response.status).toBe(400);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await errorBody(response)).toEqual({
      ok: false,
      error: "malformed_body",
      message: expect.any(String),
    });
  });

  it.each([
    ["an array", '[{"email":"ada@example.com"}]'],
    ["a string", '"ada@example.com"'],
    ["a number", "7"],
    ["null", "null"],
  ])("refuses JSON that is not an object (%s) with 400", async (_label, body) => {
    const response = await postNewsletter(app.url, body);
    expect(response.status).toBe(400);
    const error = await errorBody(response);
    expect(error.error).toBe("malformed_body");
    expect(error.message).toMatch(/JSON object/);
  });

  it("reports every invalid field at once with 422", async () => {
    const response = await postNewsletter(app.url, { email: "not-an-address", topics: ["ai"] });
    expect(response.status).toBe(422);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await errorBody(response)).toEqual({
      ok: false,
      error: "validation_failed",
      message: expect.any(String),
      fields: {
        email: expect.stringMatching(/valid email/),
        topics: expect.stringMatching(/"ai" is not a topic/),
      },
    });
  });

  it.each([
    ["a missing email", {}, "email"],
    ["an email of 255 characters", { email: `${"a".repeat(64)}@${"b".repeat(186)}.com` }, "email"],
    ["a topic in the wrong case", { email: "ada@example.com", topics: ["quantum"] }, "topics"],
    ["an unknown topic", { email: "ada@example.com", topics: ["Cooking"] }, "topics"],
    ["a repeated topic", { email: "ada@example.com", topics: ["AI", "AI"] }, "topics"],
    ["topics as a string", { email: "ada@example.com", topics: "AI" }, "topics"],
    ["topics as null", { email: "ada@example.com", topics: null }, "topics"],
  ])("refuses %s with 422 on that field and stores nothing", async (_label, body, field) => {
    const before = await listInbox(inbox);
    const response = await postNewsletter(app.url, body);
    expect(response.status).toBe(422);
    expect(Object.keys((await errorBody(response)).fields ?? {})).toEqual([field]);
    expect(await listInbox(inbox)).toEqual(before);
  });

  it.each([
    ["text/plain", "text/plain"],
    ["a form", "application/x-www-form-urlencoded"],
    ["multipart", "multipart/form-data; boundary=x"],
    ["a JSON-like type", "application/ld+json"],
  ])("refuses %s with 415", async (_label, contentType) => {
    const response = await postNewsletter(app.url, { email: freshEmail() }, { "content-type": contentType });
    expect(response.status).toBe(415);
    expect(await errorBody(response)).toMatchObject({ ok: false, error: "unsupported_media_type" });
  });

  it("refuses a body without a content type with 415", async () => {
    const response = await fetch(`${app.url}/api/newsletter`, {
      method: "POST",
      body: new Uint8Array(Buffer.from(JSON.stringify({ email: freshEmail() }))),
      headers: { "x-forwarded-for": nextAddress() },
    });
    expect(response.status).toBe(415);
    expect((await errorBody(response)).error).toBe("unsupported_media_type");
  });

  it("refuses a body of 16 KiB + 1 byte with 413", async () => {
    const response = await postNewsletter(app.url, paddedBody(16 * KiB + 1));
    expect(response.status).toBe(413);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await errorBody(response)).toEqual({
      ok: false,
      error: "payload_too_large",
      message: expect.stringMatching(/16 KB/),
    });
  });

  it("answers a declared 1 MiB body with 413 before any of it is sent", async () => {
    const response = await rawRequest(`${app.url}/api/newsletter`, {
      headers: {
        "content-type": "application/json",
        "content-length": 1024 * KiB,
        "x-forwarded-for": nextAddress(),
      },
      write: (req) => req.flushHeaders(), // headers only; the body never comes
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ ok: false, error: "payload_too_large" });
  });

  it("refuses an oversized chunked body (no Content-Length) with 413", async () => {
    const email = freshEmail();
    const response = await rawRequest(`${app.url}/api/newsletter`, {
      headers: {
        "content-type": "application/json",
        "transfer-encoding": "chunked",
        "x-forwarded-for": nextAddress(),
      },
      write: (req) => {
        req.write(`{"email":"${email}","padding":"`);
        for (let i = 0; i < 20; i++) req.write("x".repeat(KiB));
        req.end('"}');
      },
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ ok: false, error: "payload_too_large" });
    await expect(stat(subscriberFile(inbox, email))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("accepts a small chunked body", async () => {
    const email = freshEmail();
    const response = await rawRequest(`${app.url}/api/newsletter`, {
      headers: {
        "content-type": "application/json",
        "transfer-encoding": "chunked",
        "x-forwarded-for": nextAddress(),
      },
      write: (req) => {
        req.write(`{"email":`);
        req.end(`"${email}"}`);
      },
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ ok: true, status: "subscribed" });
  });

  it.each([
    ["declared size before media type", { "content-type": "text/plain", "content-length": 64 * KiB }, 413],
    ["media type before parsing", { "content-type": "text/plain" }, 415],
  ])("checks %s", async (_label, headers, status) => {
    const response = await rawRequest(`${app.url}/api/newsletter`, {
      headers: { "x-forwarded-for": nextAddress(), ...headers },
      write: (req) => ("content-length" in headers ? req.flushHeaders() : req.end("{ not json")),
    });
    expect(response.status).toBe(status);
  });

  it("limits one address to 10 requests in the window; the 11th gets 429 with Retry-After", async () => {
    const address = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await postNewsletter(app.url, { email: freshEmail() }, { "x-forwarded-for": address });
      statuses.push(response.status);
      expect(response.headers.get("ratelimit-remaining")).toBe(String(9 - i));
    }
    expect(statuses).toEqual(new Array(10).fill(200));

    const email = freshEmail();
    const refused = await postNewsletter(app.url, { email }, { "x-forwarded-for": address });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(await errorBody(refused)).toEqual({
      ok: false,
      error: "rate_limited",
      message: expect.any(String),
    });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 600).toBe(true);
    expect(refused.headers.get("ratelimit-limit")).toBe("10");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
    await expect(stat(subscriberFile(inbox, email))).rejects.toMatchObject({ code: "ENOENT" });

    const other = await postNewsletter(app.url, { email });
    expect(other.status).toBe(200);
  });

  it("counts refused requests too, and keeps its budget apart from the contact form's", async () => {
    const address = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const contact = await fetch(`${app.url}/api/contact`, {
        method: "POST",
        headers: { "x-forwarded-for": address, "content-type": "text/plain" },
        body: "x",
      });
      statuses.push(contact.status);
    }
    expect(statuses).toEqual([415, 415, 415, 415, 415, 429]);

    statuses.length = 0;
    for (let i = 0; i < 11; i++) {
      const response = await postNewsletter(app.url, "{ broken", { "x-forwarded-for": address });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...new Array(10).fill(400), 429]);
  });
});

describe("POST /api/newsletter: malformed bodies never cause a 500", () => {
  /** mulberry32: a small seeded generator, so a failure can be replayed. */
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  const seed = 20_260_301;
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const strings = ["", " ", "AI", "ai", "ada@example.com", "@", "\u0000", "\ud800", "💌", "a".repeat(300)];

  function value(depth: number): unknown {
    const kind = Math.floor(next() * (depth > 3 ? 5 : 7));
    switch (kind) {
      case 0:
        return null;
      case 1:
        return next() < 0.5;
      case 2:
        return pick([0, -1, 1e308, 3.5, Number.MAX_SAFE_INTEGER]);
      case 3:
      case 4:
        return pick([...strings, ...TOPICS]);
      case 5:
        return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: Math.floor(next() * 4) }, () => [
            pick(["email", "topics", "__proto__", "constructor", "x"]),
            value(depth + 1),
          ]),
        );
    }
  }

  let fuzzCount = 0;
  function body(): string | Uint8Array {
    fuzzCount += 1;
    const shape = Math.floor(next() * 7);
    const valid = JSON.stringify({ email: "fuzz@example.com", topics: ["AI"] });
    switch (shape) {
      case 0:
        return JSON.stringify(value(0)) ?? "";
      case 1:
        return JSON.stringify({ email: value(1), topics: value(1) });
      case 2:
        return valid.slice(0, Math.floor(next() * valid.length));
      case 3: {
        const at = Math.floor(next() * valid.length);
        return (
          valid.slice(0, at) + pick(["{", "}", "[", "]", '"', ",", ":", "\\", "\u0000"]) + valid.slice(at)
        );
      }
      case 4:
        return Uint8Array.from({ length: 1 + Math.floor(next() * 64) }, () => Math.floor(next() * 256));
      case 5: {
        // Deep nesting, kept under the 16 KiB cap.
        const depth = 1 + Math.floor(next() * 1500);
        return pick(["[", '{"email":', '{"topics":['])
          .repeat(depth)
          .slice(0, 16 * KiB);
      }
      default: {
        // A valid request with a stray key: the parser must still find the fields.
        const topics = TOPICS.filter(() => next() < 0.3);
        return JSON.stringify({ email: `fuzz${fuzzCount}@example.com`, topics, [pick(strings)]: value(1) });
      }
    }
  }

  it(`answers 200, 400 or 422 to 150 generated bodies (seed ${seed})`, async () => {
    const cases = Array.from({ length: 150 }, body);
    const seen = new Set<number>();
    for (let start = 0; start < cases.length; start += 10) {
      const batch = cases.slice(start, start + 10);
      const answers = await Promise.all(
        batch.map(async (payload) => {
          const response = await fetch(`${app.url}/api/newsletter`, {
            method: "POST",
            body: typeof payload === "string" ? payload : new Uint8Array(payload),
            headers: { "content-type": "application/json", "x-forwarded-for": nextAddress() },
          });
          return { payload, status: response.status, body: (await response.json()) as { ok: boolean } };
        }),
      );
      for (const answer of answers) {
        seen.add(answer.status);
        expect([200, 400, 422], `body ${JSON.stringify(String(answer.payload))}`).toContain(answer.status);
        expect(typeof answer.body.ok).toBe("boolean");
      }
    }
    expect([...seen].sort()).toEqual([200, 400, 422]);
    expect(app.output()).not.toContain("[api] unexpected error");
  });
});

describe("POST /api/newsletter: storage failure", () => {
  let broken: AppServer;

  beforeAll(async () => {
    broken = await startApp({ INBOX_DIR: await unwritableInboxDir() });
  });

  afterAll(async () => {
    await broken?.stop();
  });

  it("answers 503 storage_unavailable when the inbox cannot be written", async () => {
    const response = await postNewsletter(broken.url, { email: freshEmail(), topics: ["AI"] });
    expect(response.status).toBe(503);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("ratelimit-limit")).toBe("10");
    expect(await errorBody(response)).toEqual({
      ok: false,
      error: "storage_unavailable",
      message: expect.any(String),
    });
  });
});

describe("POST /api/newsletter: the footer form without JavaScript", () => {
  const formBody = (email: string, topics: string[] = []) => {
    const body = new URLSearchParams({ email });
    for (const topic of topics) body.append("topics", topic);
    return body.toString();
  };
  const navigate = (body: string) =>
    fetch(`${app.url}/api/newsletter`, {
      method: "POST",
      redirect: "manual",
      body,
      headers: {
        accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        "content-type": "application/x-www-form-urlencoded",
        "x-forwarded-for": nextAddress(),
      },
    });

  it("subscribes a form-encoded post and redirects (303) to the newsletter page", async () => {
    const first = await navigate(`${formBody("Native@Example.com", ["AI", "Quantum"])}&page=%2Fabout`);
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/newsletter?status=subscribed");
    expect(await readSubscriber(inbox, "native@example.com")).toMatchObject({
      topics: ["AI", "Quantum"],
      consent: { method: "single", page: "/about" },
    });

    const again = await navigate(formBody("native@example.com"));
    expect(again.headers.get("location")).toBe("/newsletter?status=already-subscribed");
  });

  it("redirects an invalid post back with the invalid fields, never the address", async () => {
    const response = await navigate(formBody("not an address", ["Cooking"]));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(
      "/newsletter?error=validation_failed&invalid=email%2Ctopics",
    );
  });

  it("keeps the JSON contract for scripts: form-encoded without Accept text/html is 415", async () => {
    const response = await fetch(`${app.url}/api/newsletter`, {
      method: "POST",
      body: formBody("script@example.com"),
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": nextAddress() },
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as ErrorBody).error).toBe("unsupported_media_type");
  });
});
