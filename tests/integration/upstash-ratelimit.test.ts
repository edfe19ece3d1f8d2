import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { rateLimitSubject } from "@/lib/http/client-address";
import { createRateLimiters, rateLimitHeaders } from "@/lib/ratelimit";
import { createRedisClient, REDIS_TIMEOUT_MS, UpstashRateLimiter } from "@/lib/ratelimit/upstash";
import { type RedisServer, startRedis } from "../support/redis";
import { freePort } from "../support/server";
import { startUpstashBridge, type UpstashBridge } from "../support/upstash-bridge";

/**
 * The Upstash limiter in process, with the real @upstash/redis and @upstash/ratelimit, against a
 * real redis-server behind the REST bridge. (The same driver under `next start`, shared by two app
 * processes: shared-limits.test.ts.)
 */

const CONTRACT_FAIL_OPEN_MS = 1_500;
const rule = { limit: 3, windowMs: 60_000, source: "3/1m" };

/** What Upstash answers when a database's request limit is used up: every command fails with it. */
const LIMIT_EXCEEDED =
  "ERR max requests limit exceeded. Limit: 500000, Usage: 500000. See https://upstash.com/docs/redis/troubleshooting/max_requests_limit for details";

let subjectCounter = 0;
const freshSubject = () => `203.0.113.${(subjectCounter += 1)}`;

/** Waits, if needed, until the current fixed window has `marginMs` left, so a test's requests share one. */
async function awayFromWindowEdge(windowMs: number, marginMs = 5_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

function collectingWarnings() {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => warnings.push(message) };
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

describe("UpstashRateLimiter against Redis", () => {
  let redis: RedisServer;
  let bridge: UpstashBridge;

  beforeAll(async () => {
    redis = await startRedis();
    bridge = await startUpstashBridge(redis.port);
  });

  afterAll(async () => {
    await bridge?.close();
    await redis?.stop();
  });

  it("allows `limit` requests in the window, then refuses, with the memory driver's decision shape", async () => {
    await awayFromWindowEdge(rule.windowMs);
    const { warn, warnings } = collectingWarnings();
    // Counting, not the timeout (its own cases below): a loaded test machine's first call (the
    // script loaded through the bridge) may pass the production 800 ms and be let through unchecked.
    const limiter = new UpstashRateLimiter(createRedisClient(bridge), "contact", rule, {
      warn,
      timeoutMs: 5_000,
    });
    const subject = freshSubject();
    const before = Date.now();
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await limiter.consume(subject));

    expect(decisions.map(({ allowed, limit, remaining }) => ({ allowed, limit, remaining }))).toEqual([
      { allowed: true, limit: 3, remaining: 2 },
      { allowed: true, limit: 3, remaining: 1 },
      { allowed: true, limit: 3, remaining: 0 },
      { allowed: false, limit: 3, remaining: 0 },
      { allowed: false, limit: 3, remaining: 0 },
    ]);
    for (const decision of decisions) {
      expect(decision.resetAt).toBeGreaterThan(before);
      expect(decision.resetAt).toBeLessThanOrEqual(Date.now() + rule.windowMs);
    }
    const refused = rateLimitHeaders(decisions[3]!);
    expect(Number(refused["Retry-After"])).toBeGreaterThanOrEqual(1);
    expect(Number(refused["Retry-After"])).toBeLessThanOrEqual(60);
    expect(warnings).toEqual([]);
  });

  it("two clients (two app processes) share one count", async () => {
    await awayFromWindowEdge(rule.windowMs);
    const first = new UpstashRateLimiter(createRedisClient(bridge), "contact", rule);
    const second = new UpstashRateLimiter(createRedisClient(bridge), "contact", rule);
    const subject = freshSubject();
    expect((await first.consume(subject)).allowed).toBe(true);
    expect((await second.consume(subject)).allowed).toBe(true);
    expect((await first.consume(subject)).allowed).toBe(true);
    expect((await second.consume(subject)).allowed).toBe(false);
    expect((await first.consume(subject)).allowed).toBe(false);
  });

  it("keeps one budget per policy and per subject, under the policy's key prefix, never naming the address", async () => {
    await awayFromWindowEdge(rule.windowMs);
    const client = createRedisClient(bridge);
    const contact = new UpstashRateLimiter(client, "contact", rule);
    const newsletter = new UpstashRateLimiter(client, "newsletter", rule);
    const subject = freshSubject();
    const ipv6 = rateLimitSubject("2001:db8:4a1:77:5c3e:11ff:fe20:9a1b");
    for (let i = 0; i < 3; i++) await contact.consume(subject);
    expect((await contact.consume(subject)).allowed).toBe(false);
    expect(await newsletter.consume(subject)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await contact.consume(freshSubject())).toMatchObject({ allowed: true, remaining: 2 });
    expect(await newsletter.consume(ipv6)).toMatchObject({ allowed: true, remaining: 2 });

    const resp = await redis.connect();
    try {
      const keys = ((await resp.command(["KEYS", "*"])) as Buffer[]).map((key) => key.toString());
      expect(new Set(keys.map((key) => key.split(":").slice(0, 3).join(":")))).toEqual(
        new Set(["intake:ratelimit:contact", "intake:ratelimit:newsletter"]),
      );
      expect(keys.filter((key) => key.includes(subject) || key.includes("2001:db8:4a1:77"))).toEqual([]);
    } finally {
      resp.close();
    }
  });

  it("instances built from one configuration share one count, with IP_HASH_SALT set or not", async () => {
    await awayFromWindowEdge(60_000);
    for (const salt of ["shared-salt", undefined]) {
      const env = {
        UPSTASH_REDIS_REST_URL: bridge.url,
        UPSTASH_REDIS_REST_TOKEN: bridge.token,
        CONTACT_RATE_LIMIT: "2/1m",
        IP_HASH_SALT: salt,
      };
      // Two processes: each builds its limiters from the same variables (a random per-process salt
      // for the brief's ipHash would give each its own budget).
      const first = createRateLimiters(parseConfig(env));
      const second = createRateLimiters(parseConfig(env));
      const subject = freshSubject();
      expect((await first.contact.consume(subject)).allowed).toBe(true);
      expect((await second.contact.consume(subject)).allowed).toBe(true);
      expect((await first.contact.consume(subject)).allowed).toBe(false);
      expect((await second.contact.consume(subject)).allowed).toBe(false);
    }
  });
});

describe("UpstashRateLimiter fails open", () => {
  let redis: RedisServer;
  let bridge: UpstashBridge;

  beforeAll(async () => {
    redis = await startRedis();
    bridge = await startUpstashBridge(redis.port);
  });

  afterEach(() => {
    redis?.resume();
    bridge?.failWith(null);
  });

  afterAll(async () => {
    await bridge?.close();
    await redis?.stop();
  });

  it("while Redis hangs: allowed within 1.5 s, with a warning; counting resumes when it answers", async () => {
    await awayFromWindowEdge(rule.windowMs);
    const { warn, warnings } = collectingWarnings();
    const limiter = new UpstashRateLimiter(createRedisClient(bridge), "contact", rule, { warn });
    const subject = freshSubject();
    for (let i = 0; i < 3; i++) await limiter.consume(subject);
    expect((await limiter.consume(subject)).allowed).toBe(false);

    redis.pause();
    const { value: decision, ms } = await timed(limiter.consume(subject));
    expect(decision).toMatchObject({ allowed: true, limit: 3 });
    expect(ms).toBeGreaterThanOrEqual(REDIS_TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(CONTRACT_FAIL_OPEN_MS);
    expect(warnings).toEqual([expect.stringMatching(/\[ratelimit\] Redis did not answer in time/)]);

    redis.resume();
    expect((await limiter.consume(subject)).allowed).toBe(false);
    expect(warnings[1]).toMatch(/Redis answers again/);
  });

  it("when the REST endpoint is unreachable: allowed at once, with a warning", async () => {
    const { warn, warnings } = collectingWarnings();
    const url = `http://127.0.0.1:${await freePort()}`;
    const limiter = new UpstashRateLimiter(createRedisClient({ url, token: "x" }), "contact", rule, { warn });
    const { value: decision, ms } = await timed(limiter.consume(freshSubject()));
    expect(decision).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    // A refused connection is retried once, not for seconds: no need to wait for the timeout.
    expect(ms).toBeLessThan(REDIS_TIMEOUT_MS / 2);
    expect(warnings).toEqual([expect.stringMatching(/\[ratelimit\] Redis failed: .*fetch failed/)]);
  });

  it("when the endpoint answers errors (a wrong token): allowed at once, not retried for seconds", async () => {
    const { warn, warnings } = collectingWarnings();
    const limiter = new UpstashRateLimiter(
      createRedisClient({ url: bridge.url, token: "wrong" }),
      "contact",
      rule,
      { warn },
    );
    const subject = freshSubject();
    const { value: decision, ms } = await timed(limiter.consume(subject));
    expect(decision.allowed).toBe(true);
    expect(ms).toBeLessThan(500);
    expect(warnings).toEqual([expect.stringMatching(/Redis failed: .*Unauthorized/)]);
    expect(warnings[0]).not.toContain(subject);
  });

  it("when Redis answers an error, the warning says so but names no client address", async () => {
    bridge.failWith(LIMIT_EXCEEDED);
    const { warn, warnings } = collectingWarnings();
    const client = createRedisClient(bridge);
    const contact = new UpstashRateLimiter(client, "contact", rule, { warn });
    const newsletter = new UpstashRateLimiter(client, "newsletter", rule, { warn });
    const ipv4 = "198.51.100.23";
    const ipv6 = "2001:db8:4a1:77:5c3e:11ff:fe20:9a1b";
    expect(rateLimitSubject(ipv6)).toBe("2001:db8:4a1:77::/64");

    expect((await contact.consume(rateLimitSubject(ipv4))).allowed).toBe(true);
    expect((await newsletter.consume(rateLimitSubject(ipv6))).allowed).toBe(true);
    expect(warnings).toEqual([
      expect.stringMatching(
        /\[ratelimit\] Redis failed: .*max requests limit exceeded.* intake:ratelimit:contact /,
      ),
      expect.stringMatching(
        /\[ratelimit\] Redis failed: .*max requests limit exceeded.* intake:ratelimit:newsletter /,
      ),
    ]);
    for (const warning of warnings) {
      expect(warning).not.toContain(ipv4);
      expect(warning).not.toContain("2001:db8:4a1:77");
    }
  });

  it("warns once per 10 s while failing, counting what went through unchecked", async () => {
    let now = 1_000_000;
    const { warn, warnings } = collectingWarnings();
    const url = `http://127.0.0.1:${await freePort()}`;
    const limiter = new UpstashRateLimiter(createRedisClient({ url, token: "x" }), "contact", rule, {
      warn,
      now: () => now,
    });
    for (let i = 0; i < 4; i++) await limiter.consume(freshSubject());
    now += 10_000;
    await limiter.consume(freshSubject());
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/1 request\(s\) .* let through unchecked/);
    expect(warnings[1]).toMatch(/4 request\(s\) under intake:ratelimit:contact let through unchecked/);
  });

  it("when Redis is killed behind the bridge: allowed within 1.5 s, with a warning", async () => {
    const { warn, warnings } = collectingWarnings();
    const limiter = new UpstashRateLimiter(createRedisClient(bridge), "contact", rule, { warn });
    const subject = freshSubject();
    expect((await limiter.consume(subject)).allowed).toBe(true);
    await redis.kill();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await timed(limiter.consume(subject)));
    for (const { value, ms } of results) {
      expect(value.allowed).toBe(true);
      expect(ms).toBeLessThan(CONTRACT_FAIL_OPEN_MS);
    }
    expect(warnings).toEqual([expect.stringMatching(/\[ratelimit\] Redis failed/)]);
  });
});

describe("UpstashRateLimiter with failClosed (a budget that guards an email)", () => {
  let redis: RedisServer;
  let bridge: UpstashBridge;

  beforeAll(async () => {
    redis = await startRedis();
    bridge = await startUpstashBridge(redis.port);
  });

  afterEach(() => {
    redis?.resume();
  });

  afterAll(async () => {
    await bridge?.close();
    await redis?.stop();
  });

  it("counts like any other while Redis answers", async () => {
    await awayFromWindowEdge(rule.windowMs);
    const limiter = new UpstashRateLimiter(createRedisClient(bridge), "ops-sign-in-address", rule, {
      failClosed: true,
    });
    const subject = freshSubject();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push((await limiter.consume(subject)).allowed);
    expect(decisions).toEqual([true, true, true, false]);
  });

  it("while Redis hangs: refused within 1.5 s, with a warning; counting resumes when it answers", async () => {
    await awayFromWindowEdge(rule.windowMs);
    const { warn, warnings } = collectingWarnings();
    const limiter = new UpstashRateLimiter(createRedisClient(bridge), "ops-sign-in-address", rule, {
      warn,
      failClosed: true,
    });
    const subject = freshSubject();
    redis.pause();
    const { value: decision, ms } = await timed(limiter.consume(subject));
    expect(decision).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(decision.resetAt).toBeGreaterThan(Date.now());
    expect(ms).toBeLessThan(CONTRACT_FAIL_OPEN_MS);
    expect(warnings).toEqual([
      expect.stringMatching(
        /\[ratelimit\] Redis did not answer in time; 1 email\(s\) under intake:ratelimit:ops-sign-in-address held back/,
      ),
    ]);

    redis.resume();
    expect((await limiter.consume(freshSubject())).allowed).toBe(true);
    expect(warnings[1]).toMatch(/Redis answers again/);
  });

  it("when the REST endpoint is unreachable: refused at once; one warning per 10 s, with the count", async () => {
    let now = 1_000_000;
    const { warn, warnings } = collectingWarnings();
    const url = `http://127.0.0.1:${await freePort()}`;
    const limiter = new UpstashRateLimiter(
      createRedisClient({ url, token: "x" }),
      "ops-sign-in-address",
      rule,
      {
        warn,
        now: () => now,
        failClosed: true,
      },
    );
    const subject = freshSubject();
    for (let i = 0; i < 4; i++) expect((await limiter.consume(subject)).allowed).toBe(false);
    now += 10_000;
    expect((await limiter.consume(subject)).allowed).toBe(false);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/Redis failed: .*fetch failed; 1 email\(s\) under .* held back/);
    expect(warnings[1]).toMatch(/4 email\(s\) under intake:ratelimit:ops-sign-in-address held back/);
    for (const warning of warnings) expect(warning).not.toContain(subject);
  });

  it("createRateLimiters: only the sign-in's per-address budget fails closed; every other limit fails open", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const limiters = createRateLimiters(
      parseConfig({ UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: "x", IP_HASH_SALT: "salt" }),
    );
    const subject = freshSubject();
    const allowed = Object.fromEntries(
      await Promise.all(
        Object.entries(limiters).map(async ([policy, limiter]) => [
          policy,
          (await limiter.consume(subject)).allowed,
        ]),
      ),
    );
    expect(allowed).toEqual({
      contact: true,
      newsletter: true,
      confirm: true,
      upload: true,
      opsSignInAddress: false,
      opsSignInClient: true,
    });
  });
});
