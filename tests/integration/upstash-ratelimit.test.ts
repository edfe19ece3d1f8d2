import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rateLimitHeaders } from "@/lib/ratelimit";
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
    const limiter = new UpstashRateLimiter(createRedisClient(bridge), "contact", rule, { warn });
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

  it("keeps one budget per policy and per subject, under the policy's key prefix in Redis", async () => {
    await awayFromWindowEdge(rule.windowMs);
    const client = createRedisClient(bridge);
    const contact = new UpstashRateLimiter(client, "contact", rule);
    const newsletter = new UpstashRateLimiter(client, "newsletter", rule);
    const subject = freshSubject();
    for (let i = 0; i < 3; i++) await contact.consume(subject);
    expect((await contact.consume(subject)).allowed).toBe(false);
    expect(await newsletter.consume(subject)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await contact.consume(freshSubject())).toMatchObject({ allowed: true, remaining: 2 });

    const resp = await redis.connect();
    try {
      const keys = (await resp.command(["KEYS", `intake:ratelimit:*:${subject}:*`])) as Buffer[];
      expect(keys.map((key) => key.toString().split(":").slice(0, 3).join(":")).sort()).toEqual([
        "intake:ratelimit:contact",
        "intake:ratelimit:newsletter",
      ]);
    } finally {
      resp.close();
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
    const { value: decision, ms } = await timed(limiter.consume(freshSubject()));
    expect(decision.allowed).toBe(true);
    expect(ms).toBeLessThan(500);
    expect(warnings).toEqual([expect.stringMatching(/Redis failed: .*Unauthorized/)]);
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
