import { createHmac } from "node:crypto";
import type { Redis } from "@upstash/redis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CooldownUnavailableError, releasedOnFailure, UpstashCooldown } from "@/lib/ratelimit/cooldown";

/**
 * The shared cooldown's own logic, each call it makes and each way it answers, over a stand-in
 * for the `@upstash/redis` client (the two methods it calls). The real client against a real
 * Redis: tests/integration/upstash-cooldown.test.ts.
 */

const RELEASE_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;

/** The documented key, written out here: a keyed hash of `cooldown:<subject>`, 32 hex digits. */
const windowKey = (policy: string, subject: string, secret: string) =>
  `intake:cooldown:${policy}:${createHmac("sha256", secret).update(`cooldown:${subject}`).digest("hex").slice(0, 32)}`;

interface Call {
  method: "set" | "eval";
  args: unknown[];
}

/** Answers `set` and `eval` from the queue given (a value, or an error to throw); records every call. */
function fakeRedis(answers: { set?: unknown[]; eval?: unknown[] } = {}) {
  const calls: Call[] = [];
  const next = async (queue: unknown[] | undefined, fallback: unknown) => {
    const answer = queue && queue.length > 0 ? queue.shift() : fallback;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const client = {
    set: (...args: unknown[]) => {
      calls.push({ method: "set", args });
      return next(answers.set, "OK");
    },
    eval: (...args: unknown[]) => {
      calls.push({ method: "eval", args });
      return next(answers.eval, 1);
    },
  };
  return { redis: async () => client as unknown as Redis, calls };
}

function collectingWarnings() {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => warnings.push(message) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("UpstashCooldown", () => {
  it("opens a window with SET key id NX PX window, the key a keyed hash of the subject", async () => {
    const { redis, calls } = fakeRedis();
    const cooldown = new UpstashCooldown(redis, "confirmation", 600_000, { subjectSecret: "salt" });
    expect(cooldown.driver).toBe("upstash");
    expect(cooldown.prefix).toBe("intake:cooldown:confirmation");
    expect(await cooldown.claim("someone@example.com")).not.toBeNull();
    expect(calls).toHaveLength(1);
    const [key, id, options] = calls[0]?.args ?? [];
    expect(key).toBe(windowKey("confirmation", "someone@example.com", "salt"));
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(options).toEqual({ nx: true, px: 600_000 });
  });

  it("without a subject secret, keys by the fixed default one", async () => {
    const { redis, calls } = fakeRedis();
    await new UpstashCooldown(redis, "p", 1_000).claim("a");
    expect(calls[0]?.args[0]).toBe(windowKey("p", "a", "intake:ratelimit:subject:v1"));
  });

  it("draws a new id for every claim", async () => {
    const { redis, calls } = fakeRedis();
    const cooldown = new UpstashCooldown(redis, "p", 1_000);
    await cooldown.claim("a");
    await cooldown.claim("a");
    expect(calls[0]?.args[1]).not.toBe(calls[1]?.args[1]);
  });

  it("answers null while a window is open (SET NX answers nothing)", async () => {
    const { redis } = fakeRedis({ set: [null] });
    expect(await new UpstashCooldown(redis, "p", 1_000).claim("a")).toBeNull();
  });

  it("releases with a script that deletes the key only while it holds this claim's id", async () => {
    const { redis, calls } = fakeRedis();
    const claim = await new UpstashCooldown(redis, "p", 1_000).claim("a");
    await claim?.release();
    const [, id] = calls[0]?.args ?? [];
    expect(calls[1]).toEqual({
      method: "eval",
      args: [RELEASE_SCRIPT, [windowKey("p", "a", "intake:ratelimit:subject:v1")], [id]],
    });
  });

  it("a release Redis fails is only warned about, without the command", async () => {
    const { redis } = fakeRedis({ eval: [new Error('ECONNRESET, command was: ["eval","secret"]')] });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const claim = await new UpstashCooldown(redis, "confirmation", 1_000).claim("a");
    await expect(claim?.release()).resolves.toBeUndefined();
    expect(warn.mock.calls).toEqual([
      ["[ratelimit] could not end a window under intake:cooldown:confirmation: Error: ECONNRESET"],
    ]);
  });

  it("fails closed: a Redis failure rejects with CooldownUnavailableError, naming the problem", async () => {
    const failure = new Error("boom");
    const { redis } = fakeRedis({ set: [failure] });
    const { warn } = collectingWarnings();
    const error = await new UpstashCooldown(redis, "p", 1_000, { warn }).claim("a").catch((caught) => caught);
    expect(error).toBeInstanceOf(CooldownUnavailableError);
    expect(error.name).toBe("CooldownUnavailableError");
    expect(error.message).toBe("the window could not be checked: Redis failed: Error: boom");
    expect(error.cause).toBe(failure);
  });

  it("a slow Redis is said to be too slow", async () => {
    const timeout = Object.assign(new Error("aborted"), { name: "TimeoutError" });
    const { redis } = fakeRedis({ set: [timeout] });
    const { warn } = collectingWarnings();
    await expect(new UpstashCooldown(redis, "p", 1_000, { warn }).claim("a")).rejects.toThrow(
      "the window could not be checked: Redis did not answer in time",
    );
  });

  it("warns of an outage at once, then once per 10 s with what was held back, and when Redis is back", async () => {
    let now = 0;
    const { redis } = fakeRedis({ set: [new Error("down"), new Error("down"), new Error("down"), "OK"] });
    const { warnings, warn } = collectingWarnings();
    const cooldown = new UpstashCooldown(redis, "confirmation", 1_000, { warn, now: () => now });
    const claim = () => cooldown.claim("a").catch(() => null);
    await claim();
    await claim();
    now += 10_000;
    await claim();
    await claim();
    expect(warnings).toEqual([
      "[ratelimit] Redis failed: Error: down; 1 email(s) under intake:cooldown:confirmation held back",
      "[ratelimit] Redis failed: Error: down; 2 email(s) under intake:cooldown:confirmation held back",
      "[ratelimit] Redis answers again",
    ]);
  });

  it("warns on the console when given no warn", async () => {
    const { redis } = fakeRedis({ set: [new Error("down")] });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await new UpstashCooldown(redis, "p", 1_000).claim("a").catch(() => null);
    expect(warn).toHaveBeenCalledWith(
      "[ratelimit] Redis failed: Error: down; 1 email(s) under intake:cooldown:p held back",
    );
  });
});

describe("releasedOnFailure", () => {
  function countingClaim() {
    const claim = { released: 0, release: async () => void (claim.released += 1) };
    return claim;
  }

  it("answers what the work answers, and keeps the window", async () => {
    const claim = countingClaim();
    expect(await releasedOnFailure(claim, async () => "sent")).toBe("sent");
    expect(claim.released).toBe(0);
  });

  it("gives the window back when the work fails, and rethrows", async () => {
    const claim = countingClaim();
    const failure = new Error("SMTP down");
    await expect(
      releasedOnFailure(claim, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(claim.released).toBe(1);
  });
});
