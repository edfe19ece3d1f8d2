import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestLink, signInLink } from "../support/ops-web";
import { LINK_SECRET } from "../support/opt-in";
import { type RedisServer, startRedis } from "../support/redis";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { startUpstashBridge, type UpstashBridge } from "../support/upstash-bridge";

/**
 * The sign-in link's per-address budget guards an outbound email, so it fails closed: while Redis
 * is down or slow the answer is still `link-sent`, and nothing is sent (one throttled warning).
 */

const OPS = "ops@studio.example";

describe("ops sign-in while Redis is down or slow", () => {
  let redis: RedisServer;
  let bridge: UpstashBridge;
  let smtp: SmtpTestServer;
  let app: AppServer;

  beforeAll(async () => {
    redis = await startRedis();
    bridge = await startUpstashBridge(redis.port);
    smtp = await startSmtpServer();
    app = await startApp({
      INBOX_DIR: await tempDir("ops-outage-"),
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      OPS_EMAILS: OPS,
      LINK_SIGNING_SECRET: LINK_SECRET,
      SMTP_URL: smtp.url,
      EMAIL_FROM: "Studio <intake@studio.example>",
    });
  });

  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
    await bridge?.close();
    await redis?.stop();
  });

  const mailsToOps = () => smtp.received.filter((mail) => mail.envelope.to.includes(OPS)).length;
  const heldBack = () =>
    app.output().match(/\[ratelimit\] .*under intake:ratelimit:ops-sign-in-address held back/g) ?? [];

  it("answers link-sent and sends nothing, warning once; sends again once Redis answers", async () => {
    // Redis answers: the link is sent.
    expect(await (await requestLink(app, OPS)).json()).toEqual({ ok: true, status: "link-sent" });
    await signInLink(smtp, OPS, 1);

    redis.pause();
    try {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const answer = await requestLink(app, OPS);
        expect(answer.status).toBe(200);
        expect(await answer.json()).toEqual({ ok: true, status: "link-sent" });
      }
      // The deferred work is bounded by the client's 0.8 s: give it time to have sent, if it would.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(mailsToOps()).toBe(1);
      expect(heldBack()).toHaveLength(1);
    } finally {
      redis.resume();
    }

    expect(await (await requestLink(app, OPS)).json()).toEqual({ ok: true, status: "link-sent" });
    await signInLink(smtp, OPS, 2);
    expect(app.output()).not.toContain(OPS);
  });
});
