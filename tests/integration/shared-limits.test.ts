import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { briefForm, postContact, validBrief } from "../support/contact";
import { postNewsletter } from "../support/newsletter";
import { type RedisServer, startRedis } from "../support/redis";
import { type AppServer, startApp, tempDir } from "../support/server";
import { startUpstashBridge, type UpstashBridge } from "../support/upstash-bridge";

/**
 * Two `next start` processes sharing one real Redis (through the Upstash REST bridge) share one
 * contact limit; when Redis hangs or dies, requests go on within the contract's 1.5 s, with a
 * logged warning.
 */

const CONTRACT_FAIL_OPEN_MS = 1_500;
/** What Upstash answers when a database's request limit is used up: every command fails with it. */
const LIMIT_EXCEEDED =
  "ERR max requests limit exceeded. Limit: 500000, Usage: 500000. See https://upstash.com/docs/redis/troubleshooting/max_requests_limit for details";
const WINDOW_MS = 600_000; // CONTACT_RATE_LIMIT's default, 5/10m

let redis: RedisServer;
let bridge: UpstashBridge;
let first: AppServer;
let second: AppServer;

beforeAll(async () => {
  redis = await startRedis();
  bridge = await startUpstashBridge(redis.port);
  const env = { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token };
  [first, second] = await Promise.all([
    startApp({ ...env, INBOX_DIR: await tempDir() }),
    startApp({ ...env, INBOX_DIR: await tempDir() }),
  ]);
});

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await bridge?.close();
  await redis?.stop();
});

let addressCounter = 0;
/** Addresses of this suite's own range, one per test. */
const freshAddress = () => `192.0.2.${(addressCounter += 1)}`;

/** Upstash counts in fixed windows aligned to the epoch: keep a test's requests inside one. */
async function awayFromWindowEdge(marginMs = 10_000): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

async function send(app: AppServer, address: string): Promise<{ response: Response; ms: number }> {
  const started = Date.now();
  const response = await postContact(app.url, briefForm(validBrief()), { "x-forwarded-for": address });
  await response.arrayBuffer();
  return { response, ms: Date.now() - started };
}

describe("rate limits shared through Redis", () => {
  it("both processes report the upstash driver", async () => {
    for (const app of [first, second]) {
      expect(await (await fetch(`${app.url}/api/health`)).json()).toMatchObject({ ratelimit: "upstash" });
    }
  });

  it("5 briefs from one address across both processes pass; the 6th is refused by either", async () => {
    await awayFromWindowEdge();
    const address = freshAddress();
    const answers = [];
    for (const app of [first, second, first, second, first])
      answers.push((await send(app, address)).response);
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((response) => response.headers.get("ratelimit-remaining"))).toEqual([
      "4",
      "3",
      "2",
      "1",
      "0",
    ]);
    expect(answers.every((response) => response.headers.get("ratelimit-limit") === "5")).toBe(true);

    for (const app of [second, first]) {
      const { response } = await send(app, address);
      expect(response.status).toBe(429);
      const retryAfter = Number(response.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
      expect(response.headers.get("ratelimit-remaining")).toBe("0");
    }

    // Another address has its own budget, on either process.
    expect((await send(second, freshAddress())).response.status).toBe(200);
  });

  it("when Redis answers an error, requests go on and the warning names no client address", async () => {
    const ipv4 = "198.51.100.77";
    const ipv6 = "2001:db8:5e:9:a00:27ff:fe4e:66a1";
    bridge.failWith(LIMIT_EXCEEDED);
    try {
      expect((await send(first, ipv4)).response.status).toBe(200);
      const subscribed = await postNewsletter(
        first.url,
        { email: "grace@navy.example" },
        { "x-forwarded-for": ipv6 },
      );
      expect(subscribed.status).toBe(200);
      // One warning per endpoint's limiter.
      await expect
        .poll(() =>
          countMatches(first.output(), /\[ratelimit\] Redis failed: .*max requests limit exceeded/g),
        )
        .toBe(2);
    } finally {
      bridge.failWith(null);
    }
    expect(first.output()).not.toContain(ipv4);
    expect(first.output()).not.toContain("2001:db8:5e:9");
  });

  it("when Redis hangs, and then when it dies, requests go on within 1.5 s and a warning is logged", async () => {
    await awayFromWindowEdge();
    const spent = freshAddress();
    for (const app of [first, second, first, second, first]) await send(app, spent);
    expect((await send(second, spent)).response.status).toBe(429);

    redis.pause();
    try {
      const hung = await send(first, spent);
      expect(hung.response.status).toBe(200);
      expect(hung.ms).toBeLessThan(CONTRACT_FAIL_OPEN_MS);
      expect(first.output()).toMatch(/\[ratelimit\] Redis did not answer in time/);
    } finally {
      redis.resume();
    }

    // Redis answers again: the shared count is still there, and the outage's end is logged.
    expect((await send(first, spent)).response.status).toBe(429);
    expect(first.output()).toMatch(/\[ratelimit\] Redis answers again/);

    await redis.kill();
    const warningsBefore = countMatches(second.output(), /\[ratelimit\] Redis/g);
    const dead = await send(second, spent);
    expect(dead.response.status).toBe(200);
    expect(dead.ms).toBeLessThan(CONTRACT_FAIL_OPEN_MS);
    expect(dead.response.headers.get("ratelimit-limit")).toBe("5");
    expect(countMatches(second.output(), /\[ratelimit\] Redis failed/g)).toBe(1);
    expect(countMatches(second.output(), /\[ratelimit\] Redis/g)).toBe(warningsBefore + 1);
  });

  it("no process logged a client address this suite used, through any of the failures above", () => {
    for (const app of [first, second]) expect(app.output()).not.toMatch(/\b192\.0\.2\.\d+\b/);
  });
});

function countMatches(text: string, pattern: RegExp): number {
  return [...text.matchAll(pattern)].length;
}
