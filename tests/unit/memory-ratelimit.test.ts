import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RateLimitRule } from "@/lib/config";
import { ApiError, errorResponse } from "@/lib/http/errors";
import { enforceRateLimit, rateLimitHeaders } from "@/lib/ratelimit";
import { MemoryRateLimiter } from "@/lib/ratelimit/memory";
import type { RateLimitDecision } from "@/lib/ratelimit/types";

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

const CONTACT: RateLimitRule = { limit: 5, windowMs: 10 * MINUTE, source: "5/10m" };

/** A limiter on a clock the test moves by hand. */
function limiterAt(rule: RateLimitRule) {
  const clock = { now: T0 };
  const limiter = new MemoryRateLimiter(rule, () => clock.now);
  return { clock, limiter };
}

async function consumeTimes(limiter: MemoryRateLimiter, subject: string, times: number) {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < times; i++) decisions.push(await limiter.consume(subject));
  return decisions;
}

describe("MemoryRateLimiter", () => {
  describe.each<RateLimitRule>([
    CONTACT,
    { limit: 10, windowMs: 10 * MINUTE, source: "10/10m" },
    { limit: 3, windowMs: 30_000, source: "3/30s" },
    { limit: 1, windowMs: 1_000, source: "1/1s" },
  ])("rule $source", (rule) => {
    it("allows `limit` requests with remaining counting down to 0, then refuses", async () => {
      const { limiter } = limiterAt(rule);
      const decisions = await consumeTimes(limiter, "203.0.113.7", rule.limit + 2);
      expect(decisions.map(({ allowed, remaining, limit }) => ({ allowed, remaining, limit }))).toEqual([
        ...Array.from({ length: rule.limit }, (_, i) => ({
          allowed: true,
          remaining: rule.limit - 1 - i,
          limit: rule.limit,
        })),
        { allowed: false, remaining: 0, limit: rule.limit },
        { allowed: false, remaining: 0, limit: rule.limit },
      ]);
    });

    it("frees the slots once the window has passed", async () => {
      const { clock, limiter } = limiterAt(rule);
      await consumeTimes(limiter, "a", rule.limit);
      clock.now = T0 + rule.windowMs - 1;
      expect((await limiter.consume("a")).allowed).toBe(false);
      clock.now = T0 + rule.windowMs;
      const decisions = await consumeTimes(limiter, "a", rule.limit + 1);
      expect(decisions.map((decision) => decision.allowed)).toEqual([
        ...Array<boolean>(rule.limit).fill(true),
        false,
      ]);
    });
  });

  it("with 5 per 10 minutes, remaining goes 4, 3, 2, 1, 0 and the 6th is refused", async () => {
    const { limiter } = limiterAt(CONTACT);
    const decisions = await consumeTimes(limiter, "s", 6);
    expect(decisions.map((decision) => [decision.allowed, decision.remaining])).toEqual([
      [true, 4],
      [true, 3],
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
  });

  it("keeps subjects independent", async () => {
    const { limiter } = limiterAt(CONTACT);
    await consumeTimes(limiter, "203.0.113.7", 6);
    const other = await limiter.consume("198.51.100.1");
    expect(other).toMatchObject({ allowed: true, remaining: 4 });
    const ipv6 = await limiter.consume("2001:db8:1:2::/64");
    expect(ipv6).toMatchObject({ allowed: true, remaining: 4 });
    expect((await limiter.consume("203.0.113.7")).allowed).toBe(false);
  });

  it("slides: when the first request's window passes, exactly one more is allowed", async () => {
    const { clock, limiter } = limiterAt(CONTACT);
    // one request a minute, at T0, T0+1m, ..., T0+4m
    for (let i = 0; i < 5; i++) {
      clock.now = T0 + i * MINUTE;
      expect((await limiter.consume("s")).allowed).toBe(true);
    }
    clock.now = T0 + 10 * MINUTE - 1;
    expect((await limiter.consume("s")).allowed).toBe(false);

    clock.now = T0 + 10 * MINUTE;
    expect(await limiter.consume("s")).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume("s")).allowed).toBe(false);

    clock.now = T0 + 11 * MINUTE;
    expect(await limiter.consume("s")).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume("s")).allowed).toBe(false);
  });

  it.each([
    ["1 minute", 1 * MINUTE],
    ["5 minutes", 5 * MINUTE],
    ["9 minutes 59 seconds", 10 * MINUTE - 1_000],
  ])("refused requests do not extend the wait (retrying after %s)", async (_label, offset) => {
    const { clock, limiter } = limiterAt(CONTACT);
    await consumeTimes(limiter, "s", 5);
    for (let t = T0; t <= T0 + offset; t += 30_000) {
      clock.now = t;
      const decision = await limiter.consume("s");
      expect(decision.allowed).toBe(false);
      expect(decision.resetAt).toBe(T0 + 10 * MINUTE);
    }
    clock.now = T0 + 10 * MINUTE;
    expect(await limiter.consume("s")).toMatchObject({ allowed: true, remaining: 4 });
  });

  it("resetAt of a refusal is when the oldest counted request leaves the window", async () => {
    const { clock, limiter } = limiterAt(CONTACT);
    for (let i = 0; i < 5; i++) {
      clock.now = T0 + i * 2 * MINUTE;
      await limiter.consume("s");
    }
    clock.now = T0 + 9 * MINUTE;
    expect(await limiter.consume("s")).toMatchObject({ allowed: false, resetAt: T0 + 10 * MINUTE });
    clock.now = T0 + 10 * MINUTE;
    expect(await limiter.consume("s")).toMatchObject({ allowed: true, resetAt: T0 + 12 * MINUTE });
  });
});

describe("rateLimitHeaders", () => {
  const NOW = T0;

  it.each<[string, Omit<RateLimitDecision, "resetAt">, number, Record<string, string>]>([
    [
      "allowed, 10 minutes to go",
      { allowed: true, limit: 5, remaining: 4 },
      600_000,
      { "RateLimit-Limit": "5", "RateLimit-Remaining": "4", "RateLimit-Reset": "600" },
    ],
    [
      "allowed, 1.5 s to go (rounded up)",
      { allowed: true, limit: 5, remaining: 0 },
      1_500,
      { "RateLimit-Limit": "5", "RateLimit-Remaining": "0", "RateLimit-Reset": "2" },
    ],
    [
      "refused, 10 minutes to go",
      { allowed: false, limit: 5, remaining: 0 },
      600_000,
      { "RateLimit-Limit": "5", "RateLimit-Remaining": "0", "RateLimit-Reset": "600", "Retry-After": "600" },
    ],
    [
      "refused, 1.5 s to go (rounded up)",
      { allowed: false, limit: 10, remaining: 0 },
      1_500,
      { "RateLimit-Limit": "10", "RateLimit-Remaining": "0", "RateLimit-Reset": "2", "Retry-After": "2" },
    ],
    [
      "refused, 999 ms to go (at least 1)",
      { allowed: false, limit: 5, remaining: 0 },
      999,
      { "RateLimit-Limit": "5", "RateLimit-Remaining": "0", "RateLimit-Reset": "1", "Retry-After": "1" },
    ],
    [
      "refused, reset is now (at least 1)",
      { allowed: false, limit: 5, remaining: 0 },
      0,
      { "RateLimit-Limit": "5", "RateLimit-Remaining": "0", "RateLimit-Reset": "1", "Retry-After": "1" },
    ],
    [
      "refused, reset already past (at least 1)",
      { allowed: false, limit: 5, remaining: 0 },
      -2_500,
      { "RateLimit-Limit": "5", "RateLimit-Remaining": "0", "RateLimit-Reset": "1", "Retry-After": "1" },
    ],
  ])("%s", (_label, decision, untilReset, expected) => {
    expect(rateLimitHeaders({ ...decision, resetAt: NOW + untilReset }, NOW)).toEqual(expected);
  });

  it("headers of a real limiter's decisions are whole seconds", async () => {
    const { clock, limiter } = limiterAt(CONTACT);
    clock.now = T0 + 123;
    const headers = rateLimitHeaders(await limiter.consume("s"), clock.now);
    for (const value of Object.values(headers)) expect(value).toMatch(/^\d+$/);
    expect(headers["RateLimit-Reset"]).toBe("600");
  });
});

describe("enforceRateLimit", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("returns the RateLimit headers while allowed, counting down", async () => {
    const limiter = new MemoryRateLimiter(CONTACT);
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const headers = await enforceRateLimit(limiter, "s");
      expect(headers).not.toHaveProperty("Retry-After");
      expect(headers["RateLimit-Limit"]).toBe("5");
      remaining.push(headers["RateLimit-Remaining"]!);
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
  });

  it.each([
    ["right away", 0, "600"],
    ["after 1 minute", MINUTE, "540"],
    ["after 9 minutes 59.5 seconds", 10 * MINUTE - 500, "1"],
  ])(
    "throws 429 rate_limited with Retry-After when over the limit (%s)",
    async (_label, later, retryAfter) => {
      const limiter = new MemoryRateLimiter(CONTACT);
      for (let i = 0; i < 5; i++) await enforceRateLimit(limiter, "s");
      vi.setSystemTime(T0 + later);

      const error = await enforceRateLimit(limiter, "s").then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(ApiError);
      const apiError = error as ApiError;
      expect(apiError.code).toBe("rate_limited");
      expect(apiError.status).toBe(429);
      expect(apiError.headers).toMatchObject({
        "Retry-After": retryAfter,
        "RateLimit-Limit": "5",
        "RateLimit-Remaining": "0",
        "RateLimit-Reset": retryAfter,
      });

      const response = errorResponse(apiError);
      expect(response.status).toBe(429);
      expect(response.headers.get("Retry-After")).toBe(retryAfter);
      expect(await response.json()).toMatchObject({ ok: false, error: "rate_limited" });
    },
  );

  it("does not count a refused subject against another", async () => {
    const limiter = new MemoryRateLimiter(CONTACT);
    for (let i = 0; i < 5; i++) await enforceRateLimit(limiter, "a");
    await expect(enforceRateLimit(limiter, "a")).rejects.toBeInstanceOf(ApiError);
    await expect(enforceRateLimit(limiter, "b")).resolves.toMatchObject({ "RateLimit-Remaining": "4" });
  });
});
