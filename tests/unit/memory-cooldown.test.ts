import { describe, expect, it } from "vitest";
import { MemoryCooldown } from "@/lib/ratelimit/cooldown";

describe("MemoryCooldown", () => {
  function clock(start = 1_000_000) {
    let now = start;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  }

  it("grants one claim per subject per window; other subjects are apart", async () => {
    const time = clock();
    const cooldown = new MemoryCooldown(600_000, time.now);
    expect(await cooldown.claim("a")).not.toBeNull();
    expect(await cooldown.claim("a")).toBeNull();
    expect(await cooldown.claim("b")).not.toBeNull();
    time.advance(599_999);
    expect(await cooldown.claim("a")).toBeNull();
    time.advance(1);
    expect(await cooldown.claim("a")).not.toBeNull();
  });

  it("a released claim lets the next one through at once", async () => {
    const cooldown = new MemoryCooldown(600_000, clock().now);
    const claim = await cooldown.claim("a");
    await claim?.release();
    expect(await cooldown.claim("a")).not.toBeNull();
  });

  it("releasing an old claim never ends a newer window", async () => {
    const time = clock();
    const cooldown = new MemoryCooldown(1_000, time.now);
    const old = await cooldown.claim("a");
    time.advance(1_000);
    expect(await cooldown.claim("a")).not.toBeNull(); // a new window
    await old?.release();
    expect(await cooldown.claim("a")).toBeNull();
  });

  it("20 concurrent claims for one subject: exactly one granted", async () => {
    const cooldown = new MemoryCooldown(600_000);
    const claims = await Promise.all(Array.from({ length: 20 }, () => cooldown.claim("a")));
    expect(claims.filter((claim) => claim !== null)).toHaveLength(1);
  });
});
