import { describe, expect, it } from "vitest";
import { MemoryCooldown } from "@/lib/ratelimit/cooldown";

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("MemoryCooldown", () => {
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
    expect(cooldown.driver).toBe("memory");
    const claim = await cooldown.claim("a");
    await claim?.release();
    // Releasing again is a no-op, with no window left to look at.
    await expect(claim?.release()).resolves.toBeUndefined();
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

describe("MemoryCooldown: at most 100,000 subjects, the oldest windows forgotten first", () => {
  const subject = (index: number) => `subject-${index}`;

  async function claimAll(cooldown: MemoryCooldown, from: number, to: number) {
    for (let index = from; index < to; index++) await cooldown.claim(subject(index));
  }

  it("keeps every window up to 100,000 subjects", async () => {
    const cooldown = new MemoryCooldown(600_000, () => 0);
    await claimAll(cooldown, 0, 100_000);
    expect(await cooldown.claim(subject(0))).toBeNull();
    expect(await cooldown.claim(subject(99_999))).toBeNull();
  });

  it("past 100,000, forgets the oldest windows down to 90,000, in the order they were opened", async () => {
    const cooldown = new MemoryCooldown(600_000, () => 0);
    await claimAll(cooldown, 0, 100_001);
    // 10,001 forgotten (subjects 0 to 10,000): their windows open again.
    expect(await cooldown.claim(subject(0))).not.toBeNull();
    expect(await cooldown.claim(subject(10_000))).not.toBeNull();
    // The 90,000 newest are still held.
    expect(await cooldown.claim(subject(10_001))).toBeNull();
    expect(await cooldown.claim(subject(100_000))).toBeNull();
  });

  it("a window opened again counts from its new opening, not its first", async () => {
    const time = clock(0);
    const cooldown = new MemoryCooldown(1_000, time.now);
    await claimAll(cooldown, 0, 10_002);
    time.advance(1_000);
    expect(await cooldown.claim(subject(0))).not.toBeNull(); // the newest now
    await claimAll(cooldown, 10_002, 100_001);
    // 100,001 windows: the oldest 10,001 go (subjects 1 to 10,001); subject 0 was opened after them.
    expect(await cooldown.claim(subject(0))).toBeNull();
    expect(await cooldown.claim(subject(10_002))).toBeNull();
  });
});
