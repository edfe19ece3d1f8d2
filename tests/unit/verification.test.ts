import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, parseConfig, TURNSTILE_SITEVERIFY_URL, type TurnstileSettings } from "@/lib/config";
import { ApiError } from "@/lib/http/errors";
import {
  createVerifier,
  OffVerifier,
  requireHuman,
  tokenFromFormEncoded,
  tokenFromJson,
  tokenFromMultipart,
  TurnstileVerifier,
  widgetSiteKey,
} from "@/lib/verification";
import {
  type SiteverifyBehaviour,
  type SiteverifyStandIn,
  standInToken,
  startSiteverifyStandIn,
} from "../support/siteverify-standin";

const SECRET = "0x4AAAAAAAunit-test-secret";
const CLIENT = "203.0.113.7";

let standIn: SiteverifyStandIn;

beforeAll(async () => {
  standIn = await startSiteverifyStandIn({ secret: SECRET, hostname: "studio.example" });
});

afterAll(async () => {
  await standIn.stop();
});

function settings(overrides: Partial<TurnstileSettings> = {}): TurnstileSettings {
  return {
    secretKey: SECRET,
    siteKey: "0x4AAAAAAAsite",
    verifyUrl: standIn.url,
    testKeys: false,
    ...overrides,
  };
}

function verifier(warnings: string[] = [], overrides: Partial<TurnstileSettings> = {}) {
  return new TurnstileVerifier(settings(overrides), {
    hostnames: ["studio.example", "partner.example"],
    warn: (message) => warnings.push(message),
  });
}

async function check(behaviour: SiteverifyBehaviour, action = "contact", expected = action) {
  const token = standInToken(behaviour, action);
  const started = Date.now();
  const result = await verifier().verify({ token, action: expected as "contact", remoteIp: CLIENT });
  return { token, result, ms: Date.now() - started, requests: standIn.requestsFor(token) };
}

describe("configuration", () => {
  it("is off unless both keys are set", () => {
    const config = parseConfig({});
    expect(config.turnstile).toBeNull();
    expect(createVerifier(config).driver).toBe("off");
    expect(widgetSiteKey(config)).toBeNull();
  });

  it("is on with both keys, checking with Cloudflare's siteverify by default", () => {
    const config = parseConfig({ TURNSTILE_SECRET_KEY: SECRET, TURNSTILE_SITE_KEY: "0x4AAAAAAAsite" });
    expect(config.turnstile).toEqual({
      secretKey: SECRET,
      siteKey: "0x4AAAAAAAsite",
      verifyUrl: TURNSTILE_SITEVERIFY_URL,
      testKeys: false,
    });
    expect(TURNSTILE_SITEVERIFY_URL).toBe("https://challenges.cloudflare.com/turnstile/v0/siteverify");
    expect(createVerifier(config).driver).toBe("turnstile");
    expect(widgetSiteKey(config)).toBe("0x4AAAAAAAsite");
    expect(config.warnings).toEqual([]);
  });

  it.each([
    [{ TURNSTILE_SECRET_KEY: SECRET }, "TURNSTILE_SITE_KEY"],
    [{ TURNSTILE_SITE_KEY: "0x4AAAAAAAsite" }, "TURNSTILE_SECRET_KEY"],
    [{ TURNSTILE_SITE_KEY: "0x4AAAAAAAsite", TURNSTILE_SECRET_KEY: " " }, "TURNSTILE_SECRET_KEY"],
  ])("refuses half a configuration, naming the missing key (%j)", (env, missing) => {
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(new RegExp(`${missing} is not set`));
  });

  it("takes TURNSTILE_VERIFY_URL, and refuses one that is not an http(s) URL", () => {
    const env = {
      TURNSTILE_SECRET_KEY: SECRET,
      TURNSTILE_SITE_KEY: "k",
      TURNSTILE_VERIFY_URL: "http://127.0.0.1:9/v",
    };
    expect(parseConfig(env).turnstile?.verifyUrl).toBe("http://127.0.0.1:9/v");
    expect(() => parseConfig({ ...env, TURNSTILE_VERIFY_URL: "siteverify" })).toThrow(
      /TURNSTILE_VERIFY_URL must be an http\(s\) URL/,
    );
  });

  it("warns about a TURNSTILE_VERIFY_URL that turns nothing on", () => {
    expect(parseConfig({ TURNSTILE_VERIFY_URL: "http://127.0.0.1:9/v" }).warnings).toEqual([
      expect.stringMatching(/TURNSTILE_VERIFY_URL is set without .* human verification is off/),
    ]);
  });

  it.each([
    "1x0000000000000000000000000000000AA",
    "2x0000000000000000000000000000000AA",
    "3x0000000000000000000000000000000AA",
  ])("recognises Cloudflare's test secret %s, with a warning", (secret) => {
    const config = parseConfig({
      TURNSTILE_SECRET_KEY: secret,
      TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
    });
    expect(config.turnstile?.testKeys).toBe(true);
    expect(config.warnings).toEqual([expect.stringMatching(/one of Cloudflare's test keys/)]);
  });
});

describe("the Turnstile verifier against a siteverify stand-in", () => {
  it("passes a good token, asking with the secret, the token, the client address and an idempotency key", async () => {
    const { token, result, requests } = await check("pass");
    expect(result).toEqual({ ok: true, verification: "passed" });
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request).toMatchObject({
      method: "POST",
      contentType: "application/x-www-form-urlencoded",
      secret: SECRET,
      response: token,
      remoteip: CLIENT,
      idempotencyKey: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
    });
    expect(request?.fields.sort()).toEqual(["idempotency_key", "remoteip", "response", "secret"]);
  });

  it("leaves remoteip out when the client address is unknown", async () => {
    const token = standInToken("pass", "newsletter");
    const result = await verifier().verify({ token, action: "newsletter", remoteIp: null });
    expect(result.ok).toBe(true);
    expect(standIn.requestsFor(token)[0]?.fields.sort()).toEqual(["idempotency_key", "response", "secret"]);
  });

  it.each([null, ""])("refuses a missing token (%j) without asking siteverify", async (token) => {
    const before = standIn.requests.length;
    expect(await verifier().verify({ token, action: "contact", remoteIp: CLIENT })).toMatchObject({
      ok: false,
    });
    expect(standIn.requests.length).toBe(before);
  });

  it("refuses a token longer than Cloudflare's 2048 characters without asking", async () => {
    const token = standInToken("pass", "contact").padEnd(2_049, "x");
    expect(await verifier().verify({ token, action: "contact", remoteIp: CLIENT })).toMatchObject({
      ok: false,
    });
    expect(standIn.requestsFor(token)).toEqual([]);
  });

  it.each<[SiteverifyBehaviour, string]>([
    ["fail", "siteverify said no (invalid-input-response)"],
    ["wrong-hostname", "the token was issued on another site"],
    ["wrong-action", "the token was issued for another form"],
    ["http-400", "siteverify answered HTTP 400"],
    ["redirect", "siteverify answered HTTP 302"],
  ])("refuses %s", async (behaviour, reason) => {
    const { result, requests } = await check(behaviour);
    expect(result).toEqual({ ok: false, reason });
    expect(requests).toHaveLength(1);
  });

  it("refuses a token issued for another form", async () => {
    const { result } = await check("pass", "newsletter", "contact");
    expect(result).toEqual({ ok: false, reason: "the token was issued for another form" });
  });

  it("accepts a token issued on an ALLOWED_ORIGINS host", async () => {
    const partner = await startSiteverifyStandIn({ secret: SECRET, hostname: "partner.example" });
    try {
      const token = standInToken("pass", "contact");
      const result = await verifier([], { verifyUrl: partner.url }).verify({
        token,
        action: "contact",
        remoteIp: null,
      });
      expect(result).toEqual({ ok: true, verification: "passed" });
    } finally {
      await partner.stop();
    }
  });

  it("refuses a token used twice (siteverify remembers it)", async () => {
    const token = standInToken("pass", "contact");
    expect((await verifier().verify({ token, action: "contact", remoteIp: CLIENT })).ok).toBe(true);
    expect(await verifier().verify({ token, action: "contact", remoteIp: CLIENT })).toEqual({
      ok: false,
      reason: "siteverify said no (timeout-or-duplicate)",
    });
  });

  it.each<SiteverifyBehaviour>(["500-once", "hang-once"])(
    "retries once with the same idempotency key after %s, and passes",
    async (behaviour) => {
      const { result, requests, ms } = await check(behaviour);
      expect(result).toEqual({ ok: true, verification: "passed" });
      expect(requests).toHaveLength(2);
      expect(requests[1]?.idempotencyKey).toBe(requests[0]?.idempotencyKey);
      expect(ms).toBeLessThan(3_500);
    },
  );

  it("lets a request through as unavailable when siteverify answers 500 twice", async () => {
    const { result, requests } = await check("error-500");
    expect(result).toEqual({ ok: true, verification: "unavailable" });
    expect(requests).toHaveLength(2);
    expect(requests[1]?.idempotencyKey).toBe(requests[0]?.idempotencyKey);
  });

  it("lets a request through as unavailable when siteverify's answer is not JSON, twice", async () => {
    const { result, requests } = await check("not-json");
    expect(result).toEqual({ ok: true, verification: "unavailable" });
    expect(requests).toHaveLength(2);
  });

  it("lets a request through as unavailable within 3 s when siteverify hangs, having tried twice", async () => {
    const { result, requests, ms } = await check("hang");
    expect(result).toEqual({ ok: true, verification: "unavailable" });
    expect(requests).toHaveLength(2);
    expect(requests[1]?.idempotencyKey).toBe(requests[0]?.idempotencyKey);
    expect(ms).toBeGreaterThanOrEqual(2_900);
    expect(ms).toBeLessThan(3_600);
  });

  it.each<[SiteverifyBehaviour, RegExp]>([
    ["stall", /^\[verification\] siteverify did not answer within \d+ ms;/],
    ["reset", /^\[verification\] siteverify could not be reached: /],
    ["not-json", /^\[verification\] siteverify's answer is not JSON;/],
  ])(
    "lets a request through as unavailable within 3 s when siteverify answers %s, having tried twice",
    async (behaviour, warning) => {
      const warnings: string[] = [];
      const token = standInToken(behaviour, "contact");
      const started = Date.now();
      const result = await verifier(warnings).verify({ token, action: "contact", remoteIp: CLIENT });
      expect(result).toEqual({ ok: true, verification: "unavailable" });
      expect(Date.now() - started).toBeLessThan(3_600);
      expect(standIn.requestsFor(token)).toHaveLength(2);
      expect(warnings).toEqual([expect.stringMatching(warning)]);
    },
  );

  it("lets a request through as unavailable at once when siteverify cannot be reached", async () => {
    const closed = await closedPort();
    const warnings: string[] = [];
    const started = Date.now();
    const result = await verifier(warnings, { verifyUrl: `http://127.0.0.1:${closed}/siteverify` }).verify({
      token: standInToken("pass", "contact"),
      action: "contact",
      remoteIp: CLIENT,
    });
    expect(result).toEqual({ ok: true, verification: "unavailable" });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(warnings).toEqual([
      expect.stringMatching(/^\[verification\] siteverify could not be reached: .*ECONNREFUSED/),
    ]);
  });

  it("warns once per 10 s while siteverify fails, with a count, then when it answers again; never a client address or token", async () => {
    const warnings: string[] = [];
    const shared = verifier(warnings);
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) {
      const token = standInToken("error-500", "contact");
      tokens.push(token);
      expect(await shared.verify({ token, action: "contact", remoteIp: CLIENT })).toEqual({
        ok: true,
        verification: "unavailable",
      });
    }
    const token = standInToken("pass", "contact");
    tokens.push(token);
    expect((await shared.verify({ token, action: "contact", remoteIp: CLIENT })).ok).toBe(true);
    expect(warnings).toEqual([
      "[verification] siteverify answered HTTP 500; 1 request(s) let through unchecked (verification: unavailable)",
      "[verification] siteverify answers again (2 more request(s) let through unchecked)",
    ]);
    for (const line of warnings) {
      expect(line).not.toContain(CLIENT);
      expect(line).not.toContain(SECRET);
      for (const sent of tokens) expect(line).not.toContain(sent);
    }
  });

  it("skips the hostname and action checks with Cloudflare's test keys (their answers name neither)", async () => {
    const testKeys = verifier([], { testKeys: true });
    for (const behaviour of ["wrong-hostname", "wrong-action"] as const) {
      const token = standInToken(behaviour, "contact");
      expect(await testKeys.verify({ token, action: "contact", remoteIp: null })).toEqual({
        ok: true,
        verification: "passed",
      });
    }
    const failing = standInToken("fail", "contact");
    expect((await testKeys.verify({ token: failing, action: "contact", remoteIp: null })).ok).toBe(false);
  });
});

describe("requireHuman", () => {
  it("is off, whatever is sent, without verification configured", async () => {
    expect(await requireHuman(new OffVerifier(), { token: null, action: "contact", remoteIp: null })).toBe(
      "off",
    );
  });

  it("turns a refusal into 403 challenge_failed with the contract's message", async () => {
    const error = await requireHuman(verifier(), { token: null, action: "upload", remoteIp: null }).catch(
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(403);
    expect((error as ApiError).code).toBe("challenge_failed");
    expect((error as ApiError).message).toBe("Please confirm you are human, then send again.");
  });
});

describe("where the token is read from", () => {
  const field = (value: string, extra: Partial<{ truncated: boolean; invalidEncoding: boolean }> = {}) => ({
    value,
    truncated: false,
    invalidEncoding: false,
    ...extra,
  });

  it.each([
    [[field("tok")], "tok"],
    [[], null],
    [[field("")], null],
    [[field("a"), field("b")], null],
    [[field("tok", { truncated: true })], null],
    [[field("tok", { invalidEncoding: true })], null],
  ])("a multipart form with %j has %j", (values, expected) => {
    const form = { fields: new Map([["cf-turnstile-response", values]]), files: new Map() };
    expect(tokenFromMultipart(form)).toBe(expected);
  });

  it("a file part is no token", () => {
    const form = {
      fields: new Map(),
      files: new Map([["cf-turnstile-response", [{ filename: "t", chunks: [], size: 0, truncated: false }]]]),
    };
    expect(tokenFromMultipart(form as never)).toBeNull();
  });

  it.each([
    ['{"cf-turnstile-response":"tok","email":"a@b.c"}', "tok"],
    ['{"email":"a@b.c"}', null],
    ['{"cf-turnstile-response":42}', null],
    ['{"cf-turnstile-response":""}', null],
    ['["cf-turnstile-response"]', null],
    ["not json", null],
  ])("the JSON body %s has %j", (body, expected) => {
    expect(tokenFromJson(body)).toBe(expected);
  });

  it.each([
    ["email=a%40b.c&cf-turnstile-response=tok", "tok"],
    ["email=a%40b.c", null],
    ["cf-turnstile-response=a&cf-turnstile-response=b", null],
  ])("the form-encoded body %s has %j", (body, expected) => {
    expect(tokenFromFormEncoded(body)).toBe(expected);
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
