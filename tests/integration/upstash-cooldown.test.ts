import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CooldownUnavailableError } from "@/lib/ratelimit";
import { UpstashCooldown } from "@/lib/ratelimit/cooldown";
import { createRedisClient } from "@/lib/ratelimit/upstash";
import { type RedisServer, startRedis } from "../support/redis";
import { freePort } from "../support/server";
import { startUpstashBridge, type UpstashBridge } from "../support/upstash-bridge";

/**
 * The shared cooldown (one confirmation email per address per window) in process, with the real
 * @upstash/redis, against a real redis-server behind the REST bridge. (Two `next start` processes
 * sharing it: newsletter-opt-in-shared.test.ts.)
 */

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

let counter = 0;
const freshSubject = () => `subscriber-${(counter += 1)}`;

function collectingWarnings() {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => warnings.push(message) };
}

describe("UpstashCooldown against Redis", () => {
  it("two instances (two clients) share one window per subject", async () => {
    const first = new UpstashCooldown(createRedisClient(bridge), "confirmation", 600_000);
    const second = new UpstashCooldown(createRedisClient(bridge), "confirmation", 600_000);
    const subject = freshSubject();
    expect(await first.claim(subject)).not.toBeNull();
    expect(await second.claim(subject)).toBeNull();
    expect(await first.claim(subject)).toBeNull();
    expect(await second.claim(freshSubject())).not.toBeNull();
  });

  it("keeps the window in one key that expires with it, named by a keyed hash, never the subject", async () => {
    const cooldown = new UpstashCooldown(createRedisClient(bridge), "confirmation", 600_000, {
      subjectSecret: "salt",
    });
    const subject = freshSubject();
    await cooldown.claim(subject);
    const client = await redis.connect();
    try {
      const keys = ((await client.command(["KEYS", "intake:cooldown:confirmation:*"])) as Buffer[]).map(
        String,
      );
      expect(keys.length).toBeGreaterThanOrEqual(1);
      for (const key of keys) {
        expect(key).toMatch(/^intake:cooldown:confirmation:[0-9a-f]{32}$/);
        expect(key).not.toContain(subject);
        const ttl = Number(await client.command(["PTTL", key]));
        expect(ttl).toBeGreaterThan(590_000);
        expect(ttl).toBeLessThanOrEqual(600_000);
      }
    } finally {
      client.close();
    }
  });

  it("a window ends with its time, and a released claim ends it at once", async () => {
    const cooldown = new UpstashCooldown(createRedisClient(bridge), "confirmation", 300);
    const subject = freshSubject();
    expect(await cooldown.claim(subject)).not.toBeNull();
    expect(await cooldown.claim(subject)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const claim = await cooldown.claim(subject);
    expect(claim).not.toBeNull();
    await claim?.release();
    expect(await cooldown.claim(subject)).not.toBeNull();
  });

  it("releasing an old claim never ends a newer window", async () => {
    const cooldown = new UpstashCooldown(createRedisClient(bridge), "confirmation", 300);
    const subject = freshSubject();
    const old = await cooldown.claim(subject);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await cooldown.claim(subject)).not.toBeNull();
    await old?.release();
    expect(await cooldown.claim(subject)).toBeNull();
  });

  it("20 concurrent claims across two clients: exactly one granted", async () => {
    const cooldowns = [0, 1].map(
      () => new UpstashCooldown(createRedisClient(bridge), "confirmation", 600_000),
    );
    const subject = freshSubject();
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (cooldowns[i % 2] as UpstashCooldown).claim(subject)),
    );
    expect(claims.filter((claim) => claim !== null)).toHaveLength(1);
  });

  it("when Redis cannot be reached: not granted (could not check, not a window open), with a warning that names no subject", async () => {
    const { warn, warnings } = collectingWarnings();
    const url = `http://127.0.0.1:${await freePort()}`;
    const cooldown = new UpstashCooldown(createRedisClient({ url, token: "x" }), "confirmation", 600_000, {
      warn,
    });
    const subject = freshSubject();
    const started = Date.now();
    await expect(cooldown.claim(subject)).rejects.toBeInstanceOf(CooldownUnavailableError);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^\[ratelimit\] Redis failed: .*; 1 email\(s\) under intake:cooldown:confirmation held back/,
      ),
    ]);
    expect(warnings[0]).not.toContain(subject);
  });

  it("while Redis hangs: not granted within 1.5 s, and it counts again once Redis answers", async () => {
    const { warn, warnings } = collectingWarnings();
    const cooldown = new UpstashCooldown(createRedisClient(bridge), "confirmation", 600_000, { warn });
    const subject = freshSubject();
    redis.pause();
    try {
      const started = Date.now();
      await expect(cooldown.claim(subject)).rejects.toBeInstanceOf(CooldownUnavailableError);
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      redis.resume();
    }
    // The SET sent while Redis hung is carried out once it resumes: that subject's window is open
    // now (one email less, never one more). Another subject is counted as before.
    const next = freshSubject();
    expect(await cooldown.claim(next)).not.toBeNull();
    expect(await cooldown.claim(next)).toBeNull();
    expect(warnings).toEqual([
      expect.stringMatching(/Redis did not answer in time; 1 email\(s\) .* held back/),
      expect.stringMatching(/Redis answers again/),
    ]);
  });

  it("while Redis is down: one warning per 10 s however many are held back, with their count", async () => {
    let now = 1_000_000;
    const { warn, warnings } = collectingWarnings();
    const url = `http://127.0.0.1:${await freePort()}`;
    const cooldown = new UpstashCooldown(createRedisClient({ url, token: "x" }), "acknowledgment", 600_000, {
      warn,
      now: () => now,
    });
    for (let i = 0; i < 4; i++) {
      await expect(cooldown.claim(freshSubject())).rejects.toBeInstanceOf(CooldownUnavailableError);
    }
    now += 10_000;
    await expect(cooldown.claim(freshSubject())).rejects.toBeInstanceOf(CooldownUnavailableError);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/1 email\(s\) under intake:cooldown:acknowledgment held back/);
    expect(warnings[1]).toMatch(/4 email\(s\) under intake:cooldown:acknowledgment held back/);
    for (const warning of warnings) expect(warning).not.toMatch(/unchecked|let through/);
  });

  it("when Redis is killed behind the bridge: not granted, and never granted twice after it", async () => {
    const { warn, warnings } = collectingWarnings();
    const cooldown = new UpstashCooldown(createRedisClient(bridge), "acknowledgment", 600_000, { warn });
    const subject = freshSubject();
    expect(await cooldown.claim(subject)).not.toBeNull();
    await redis.kill();
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      await expect(cooldown.claim(freshSubject())).rejects.toBeInstanceOf(CooldownUnavailableError);
      expect(Date.now() - started).toBeLessThan(1_500);
    }
    expect(warnings).toEqual([expect.stringMatching(/\[ratelimit\] Redis failed: .* held back/)]);
  });
});
