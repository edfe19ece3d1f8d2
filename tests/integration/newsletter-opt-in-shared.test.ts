import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postNewsletter, subscriberFile } from "../support/newsletter";
import { LINK_SECRET, linksIn, mailsTo, postConfirm, tokenOf, waitForMails } from "../support/opt-in";
import { type RedisServer, startRedis } from "../support/redis";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { startUpstashBridge, type UpstashBridge } from "../support/upstash-bridge";

/**
 * Two `next start` processes with double opt-in, sharing one real Redis (through the Upstash REST
 * bridge) and one filesystem inbox: the 10-minute confirmation window is one window for both, and
 * the inbox's conditional writes hold across processes (its lock file), not only within one.
 */

let redis: RedisServer;
let bridge: UpstashBridge;
let smtp: SmtpTestServer;
let inbox: string;
let first: AppServer;
let second: AppServer;

beforeAll(async () => {
  redis = await startRedis();
  bridge = await startUpstashBridge(redis.port);
  smtp = await startSmtpServer();
  inbox = await tempDir();
  const env = {
    INBOX_DIR: inbox,
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: bridge.token,
    NEWSLETTER_DOUBLE_OPT_IN: "true",
    SMTP_URL: smtp.url,
    EMAIL_FROM: "news@studio.example",
    LINK_SIGNING_SECRET: LINK_SECRET,
    // One site served by both, as behind a load balancer: a link names the site, not the instance.
    SITE_URL: "https://news.studio.example",
  };
  [first, second] = await Promise.all([startApp(env), startApp(env)]);
});

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await smtp?.stop();
  await bridge?.close();
  await redis?.stop();
});

let counter = 0;
const freshEmail = () => `shared${(counter += 1)}@opt-in-${Date.now().toString(36)}.example`;

async function record(email: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(subscriberFile(inbox, email), "utf8")) as Record<string, unknown>;
}

describe("double opt-in across two instances", () => {
  it("one confirmation per address per 10 minutes, counted in Redis: the second instance sends none", async () => {
    const email = freshEmail();
    for (const app of [first, second, first]) {
      expect(await (await postNewsletter(app.url, { email })).json()).toEqual({
        ok: true,
        status: "confirmation-sent",
      });
    }
    await waitForMails(smtp, email, 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(mailsTo(smtp, email)).toHaveLength(1);
    expect(bridge.commands).toContain("SET");
    // The window's key names the subscriber by a keyed hash, never the address or its plain sha256.
    const client = await redis.connect();
    try {
      const keys = ((await client.command(["KEYS", "intake:cooldown:*"])) as Buffer[]).map(String);
      expect(keys.length).toBeGreaterThanOrEqual(1);
      expect(keys.every((key) => /^intake:cooldown:confirmation:[0-9a-f]{32}$/.test(key))).toBe(true);
    } finally {
      client.close();
    }
  });

  it("20 concurrent confirms split over both processes on one inbox: exactly one confirms", async () => {
    const email = freshEmail();
    await postNewsletter(first.url, { email, topics: ["AI"] });
    const [mail] = await waitForMails(smtp, email, 1);
    const token = tokenOf(linksIn(mail!).confirm);
    const answers = await Promise.all(
      Array.from(
        { length: 20 },
        async (_, i) =>
          ((await (await postConfirm((i % 2 ? first : second).url, { token })).json()) as { status: string })
            .status,
      ),
    );
    expect(answers.filter((status) => status === "confirmed")).toHaveLength(1);
    expect(answers.filter((status) => status === "already-subscribed")).toHaveLength(19);
    expect(await record(email)).toMatchObject({ status: "confirmed", topics: ["AI"] });
  });

  it("concurrent topic merges through both processes lose nothing", async () => {
    const email = freshEmail();
    await postNewsletter(first.url, { email });
    const topics = ["AI", "Engineering", "Research", "Software", "Infrastructure", "Emerging technology"];
    await Promise.all(
      topics.map((topic, i) => postNewsletter((i % 2 ? first : second).url, { email, topics: [topic] })),
    );
    expect([...((await record(email)).topics as string[])].sort()).toEqual([...topics].sort());
    expect((await record(email)).status).toBe("pending");
  });

  // Last: it kills Redis.
  it("while Redis is down: 503 email_unavailable, the record pending, no email, one warning; the limit still fails open", async () => {
    const email = freshEmail();
    await redis.kill();
    for (const app of [first, first, first]) {
      const started = Date.now();
      const response = await postNewsletter(app.url, { email, topics: ["AI"] });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ ok: false, error: "email_unavailable" });
    }
    expect(await record(email)).toMatchObject({ status: "pending", topics: ["AI"] });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(smtp, email)).toHaveLength(0);
    const output = first.output();
    expect(output.match(/\[ratelimit\] .*under intake:cooldown:confirmation held back/g)).toHaveLength(1);
    expect(output).toMatch(/\[ratelimit\] .*under intake:ratelimit:newsletter let through unchecked/);
    expect(output).not.toContain(email);
  });
});
