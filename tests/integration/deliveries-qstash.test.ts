import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { briefForm, postContact, validBrief } from "../support/contact";
import { findBriefFolder, listInbox } from "../support/inbox";
import { type QStashStandIn, startQStashStandIn } from "../support/qstash-standin";
import { type AppServer, startApp, startAppExpectingFailure, tempDir } from "../support/server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/**
 * Part 4's retries on serverless: `next start` with QStash configured, pointing at the stand-in
 * (the real `@upstash/qstash` client publishes to it; it calls back `SITE_URL/api/deliveries/retry`
 * signed as QStash signs), and a real webhook receiver that is down when the test says so.
 */

interface ChannelRecord {
  state: string;
  ok: boolean;
  attempts: number;
  nextAttemptAt?: string;
  log: { at: string; ok: boolean; ms: number; status?: number; error?: string }[];
}

/** Each step a second, varied by up to ±10%: a retry is published with a delay of 1 or 2 s. */
/** `next start` as on Vercel (which sets `VERCEL`): no server jobs. */
const ON_VERCEL = { VERCEL: "1" };

const SCHEDULE = "1s,1s,1s";

async function sendBrief(app: AppServer): Promise<{ reference: string; forwarded: string[]; at: number }> {
  const at = Date.now();
  const response = await postContact(app.url, briefForm(validBrief()));
  expect(response.status).toBe(200);
  const body = (await response.json()) as { reference: string; forwarded: string[] };
  return { ...body, at };
}

async function webhookRecord(inbox: string, reference: string): Promise<ChannelRecord | null> {
  const folder = await findBriefFolder(inbox, reference);
  if (!folder) return null;
  try {
    const text = await readFile(join(inbox, folder, "delivery.json"), "utf8");
    return (JSON.parse(text) as { webhook?: ChannelRecord }).webhook ?? null;
  } catch {
    return null;
  }
}

/** Polls until `check` answers something truthy, or fails after `ms`. */
async function eventually<T>(what: string, check: () => Promise<T | null | undefined | false>, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(100);
  }
}

async function dueRecord(
  inbox: string,
  reference: string,
): Promise<{ dueAt: string; leaseUntil?: string } | null> {
  try {
    const text = await readFile(join(inbox, "deliveries/due", `${reference}.webhook.json`), "utf8");
    return JSON.parse(text) as { dueAt: string; leaseUntil?: string };
  } catch {
    return null;
  }
}

function verifyWebhook(secret: string, request: { body: string; headers: Record<string, unknown> }) {
  return new Webhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"]),
  });
}

describe("with QStash configured", () => {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  let qstash: QStashStandIn;
  let receiver: WebhookReceiver;
  let inbox: string;
  let app: AppServer;
  let destination: string;

  beforeAll(async () => {
    qstash = await startQStashStandIn({ retries: 3, retryDelayMs: 300 });
    receiver = await startWebhookReceiver();
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      WEBHOOK_URL: `${receiver.url}/hooks/intake`,
      WEBHOOK_SECRET: secret,
      NOTIFY_TIMEOUT_MS: "1000",
      DELIVERY_RETRY_SCHEDULE: SCHEDULE,
      ...qstash.env,
      // As on Vercel, where QStash is for: no long-lived look for due records, so every attempt
      // after the first is QStash's call (a long-lived server's look would race it, harmlessly).
      ...ON_VERCEL,
    });
    // startApp's SITE_URL is the server's own URL: where QStash is told to call back.
    destination = `${app.url}/api/deliveries/retry`;
  });

  afterEach(async () => {
    qstash.hold(false);
    await qstash.idle();
    receiver.answer({ status: 204 });
    receiver.onRequest(null);
  });

  afterAll(async () => {
    await app?.stop();
    await qstash?.stop();
    await receiver?.stop();
  });

  it("a webhook down for two attempts is delivered on the third, each retry published to QStash and made on its call", async () => {
    receiver.answer({ status: 503 });
    let calls = 0;
    receiver.onRequest(async () => {
      // The second call is answered 503 still (its answer was chosen as it came in); the third 204.
      if (++calls === 2) receiver.answer({ status: 204 });
    });
    const { reference, forwarded, at } = await sendBrief(app);
    expect(forwarded).toEqual([]);

    const record = await eventually("the webhook delivered", async () => {
      const webhook = await webhookRecord(inbox, reference);
      return webhook?.state === "delivered" && webhook;
    });
    await qstash.idle();

    // Three attempts, all one message to the receiver: the same webhook-id, each signed afresh.
    const requests = receiver.forReference(reference);
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.headers["webhook-id"]).toBe(`msg_${reference}`);
      expect(verifyWebhook(secret, request)).toMatchObject({ type: "brief.received", reference });
    }

    expect(record).toMatchObject({ state: "delivered", ok: true, attempts: 3 });
    expect(record.nextAttemptAt).toBeUndefined();
    expect(record.log.map((entry) => [entry.ok, entry.status])).toEqual([
      [false, 503],
      [false, 503],
      [true, 204],
    ]);
    expect(await dueRecord(inbox, reference)).toBeNull();
    expect((await listInbox(inbox)).filter((path) => path.startsWith("deliveries/"))).toEqual([]);

    // Both retries, the first included, went through QStash with their delay: nothing waited in
    // after() (had it, the first message would have found its attempt made: `attempted: false`).
    const messages = qstash.publishedFor(reference);
    expect(messages).toHaveLength(2);
    for (const message of messages) {
      expect(message.destination).toBe(destination);
      expect(JSON.parse(message.body)).toEqual({ reference, channel: "webhook" });
      expect([1, 2]).toContain(message.delaySeconds);
    }
    expect(messages[0]!.at - at).toBeLessThan(5_000);
    const calls_ = qstash.deliveries.filter((delivery) =>
      messages.some((message) => message.messageId === delivery.messageId),
    );
    expect(calls_.map((call) => [call.status, JSON.parse(call.answer)])).toEqual([
      [200, { ok: true, attempted: true }],
      [200, { ok: true, attempted: true }],
    ]);

    // A stale message (QStash delivers at least once): a no-op, answered 200 so it is not sent again.
    const again = await qstash.deliver(destination, messages[1]!.body);
    expect(again.status).toBe(200);
    expect(JSON.parse(again.answer)).toEqual({ ok: true, attempted: false });
    expect(receiver.forReference(reference)).toHaveLength(3);
  });

  it("refuses a forged message without an attempt, and accepts one signed with the next key", async () => {
    qstash.hold(true);
    receiver.answer({ status: 503 });
    const { reference } = await sendBrief(app);
    const [message] = await eventually("the first retry published", async () => {
      const published = qstash.publishedFor(reference);
      return published.length > 0 && published;
    });
    const due = await eventually("the due record", () => dueRecord(inbox, reference));
    await sleep(Math.max(0, Date.parse(due.dueAt) - Date.now()) + 100);

    const forged = await qstash.deliver(destination, message!.body, { key: "forged" });
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.answer)).toEqual({
      ok: false,
      error: "unauthorized",
      message: expect.any(String),
    });
    const unsigned = await fetch(destination, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: message!.body,
    });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get("cache-control")).toBe("no-store");
    // Nothing attempted, nothing claimed.
    expect(receiver.forReference(reference)).toHaveLength(1);
    expect(await dueRecord(inbox, reference)).toEqual(due);

    receiver.answer({ status: 204 });
    const next = await qstash.deliver(destination, message!.body, { key: "next" });
    expect(next.status).toBe(200);
    expect(JSON.parse(next.answer)).toEqual({ ok: true, attempted: true });
    expect(receiver.forReference(reference)).toHaveLength(2);
    expect(await webhookRecord(inbox, reference)).toMatchObject({ state: "delivered", attempts: 2 });
    expect(await dueRecord(inbox, reference)).toBeNull();
  });

  it("a message for a brief it does not have is a no-op", async () => {
    const body = JSON.stringify({ reference: "K7QM-3XD9-PTWA-84HC", channel: "email" });
    const answer = await qstash.deliver(destination, body);
    expect(answer).toEqual({ status: 200, answer: JSON.stringify({ ok: true, attempted: false }) });
  });

  it.each<[string, string, number, Record<string, unknown>]>([
    ["not JSON", "reference=K7QM", 400, { error: "malformed_body" }],
    [
      "not a retry message",
      JSON.stringify({ reference: "K7QM-3XD9-PTWA-84HC", channel: "fax" }),
      422,
      { error: "validation_failed", fields: { channel: expect.any(String) } },
    ],
  ])("a validly signed body that is %s is refused", async (_, body, status, answer) => {
    const response = await qstash.deliver(destination, body);
    expect(response.status).toBe(status);
    expect(JSON.parse(response.answer)).toMatchObject({ ok: false, ...answer });
  });

  it("a body over 4 KiB is refused before its signature is checked", async () => {
    const body = JSON.stringify({
      reference: "K7QM-3XD9-PTWA-84HC",
      channel: "webhook",
      pad: "x".repeat(5000),
    });
    const response = await qstash.deliver(destination, body);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.answer)).toMatchObject({ ok: false, error: "payload_too_large" });
  });
});

describe("with QStash, on the Blob inbox, when the store does not answer", () => {
  let blob: BlobStandIn;
  let qstash: QStashStandIn;
  let receiver: WebhookReceiver;
  let app: AppServer;

  beforeAll(async () => {
    blob = await startBlobStandIn();
    qstash = await startQStashStandIn({ retries: 3, retryDelayMs: 1_500 });
    receiver = await startWebhookReceiver();
    app = await startApp({
      ...blobEnv(blob.token, blob.origin),
      WEBHOOK_URL: `${receiver.url}/hooks/intake`,
      WEBHOOK_SECRET: `whsec_${randomBytes(32).toString("base64")}`,
      NOTIFY_TIMEOUT_MS: "1000",
      DELIVERY_RETRY_SCHEDULE: SCHEDULE,
      ...qstash.env,
      // As on Vercel, where QStash is for: no long-lived look for due records, so every attempt
      // after the first is QStash's call (a long-lived server's look would race it, harmlessly).
      ...ON_VERCEL,
    });
  });

  afterAll(async () => {
    blob.fault = null;
    await app?.stop();
    await qstash?.stop();
    await receiver?.stop();
    await blob?.close();
  });

  it("answers 503, so QStash sends the message again, and its next call makes the attempt", async () => {
    receiver.answer({ status: 503 });
    const { reference } = await sendBrief(app);
    const [message] = await eventually("the first retry published", async () => {
      const published = qstash.publishedFor(reference);
      return published.length > 0 && published;
    });
    // The due record cannot be read until QStash has been answered 503 once.
    blob.fault = { status: 503, match: ({ pathname }) => !!pathname?.includes("deliveries/due/") };
    receiver.answer({ status: 204 });
    const refused = await eventually("QStash's first call answered", async () =>
      qstash.deliveries.find((delivery) => delivery.messageId === message!.messageId),
    );
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.answer)).toMatchObject({ ok: false, error: "storage_unavailable" });
    expect(receiver.forReference(reference)).toHaveLength(1);
    blob.fault = null;

    await eventually(
      "the webhook delivered on QStash's retry",
      async () => receiver.forReference(reference).length === 2,
    );
    await qstash.idle();
    const calls = qstash.deliveries.filter((delivery) => delivery.messageId === message!.messageId);
    expect(calls.map((call) => [call.retried, call.status, JSON.parse(call.answer)])).toEqual([
      [0, 503, expect.objectContaining({ error: "storage_unavailable" })],
      [1, 200, { ok: true, attempted: true }],
    ]);
  });
});

describe("with QStash, on the Blob inbox, a receiver slower than Part 4's 60 s lease", () => {
  const CRON_SECRET = "cron-secret-for-the-tests-0123456789";
  let blob: BlobStandIn;
  let qstash: QStashStandIn;
  let receiver: WebhookReceiver;
  let app: AppServer;

  beforeAll(async () => {
    blob = await startBlobStandIn();
    // QStash gives up on a call after 30 s (the stand-in's bound) and sends the message again.
    qstash = await startQStashStandIn({ retries: 3, retryDelayMs: 300 });
    receiver = await startWebhookReceiver();
    app = await startApp({
      ...blobEnv(blob.token, blob.origin),
      WEBHOOK_URL: `${receiver.url}/hooks/intake`,
      WEBHOOK_SECRET: `whsec_${randomBytes(32).toString("base64")}`,
      NOTIFY_TIMEOUT_MS: "75000",
      DELIVERY_RETRY_SCHEDULE: SCHEDULE,
      CRON_SECRET,
      ...qstash.env,
      ...ON_VERCEL,
    });
  });

  afterAll(async () => {
    await app?.stop();
    await qstash?.stop();
    await receiver?.stop();
    await blob?.close();
  });

  it("gets one request per scheduled attempt while QStash sends the message again and cron calls run; each cron call answers within 8 s", async () => {
    receiver.answer({ status: 503 });
    let requests = 0;
    receiver.onRequest(async () => {
      requests++;
      // The first attempt fails at once; the retry (answered 204) hangs past the old 60 s lease.
      if (requests === 1) receiver.answer({ status: 204 });
      if (requests === 2) await sleep(66_000);
    });
    const { reference } = await sendBrief(app);
    await eventually(
      "the retry under way",
      async () => receiver.forReference(reference).length === 2,
      15_000,
    );
    const [message] = qstash.publishedFor(reference);
    const duePathname = `deliveries/due/${reference}.webhook.json`;

    let slowest = 0;
    const again: unknown[] = [];
    while (blob.objects.has(duePathname)) {
      // QStash delivering the message again (at least once), and a cron call, while the retry hangs.
      const redelivered = await qstash.deliver(`${app.url}/api/deliveries/retry`, message!.body);
      if (redelivered.status !== 0) again.push([redelivered.status, JSON.parse(redelivered.answer)]);
      const started = Date.now();
      const cron = await fetch(`${app.url}/api/cron/deliveries`, {
        headers: { authorization: `Bearer ${CRON_SECRET}` },
      });
      slowest = Math.max(slowest, Date.now() - started);
      expect(cron.status).toBe(200);
      await sleep(3_000);
    }
    expect(slowest).toBeLessThan(8_000);
    expect(again.length).toBeGreaterThan(10);
    for (const answer of again) expect(answer).toEqual([200, { ok: true, attempted: false }]);
    // Past the old lease a look, a cron call or QStash's own resend would have claimed it again.
    await sleep(5_000);
    await qstash.idle();
    expect(receiver.forReference(reference)).toHaveLength(2);
    const folder = [...blob.objects.keys()].find((pathname) =>
      pathname.endsWith(`${reference}/delivery.json`),
    );
    const webhook = (
      JSON.parse(blob.objects.get(folder!)!.body.toString("utf8")) as { webhook: ChannelRecord }
    ).webhook;
    expect(webhook).toMatchObject({ state: "delivered", attempts: 2 });
    expect(webhook.log.map((entry) => [entry.ok, entry.status])).toEqual([
      [false, 503],
      [true, 204],
    ]);
  }, 150_000);
});

describe("without QStash", () => {
  let app: AppServer;

  beforeAll(async () => {
    app = await startApp({ INBOX_DIR: await tempDir() });
  });

  afterAll(async () => {
    await app?.stop();
  });

  it("POST /api/deliveries/retry is off: 404", async () => {
    const response = await fetch(`${app.url}/api/deliveries/retry`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Upstash-Signature": "x.y.z" },
      body: JSON.stringify({ reference: "K7QM-3XD9-PTWA-84HC", channel: "webhook" }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ ok: false, error: "not_found" });
  });
});

describe("the start", () => {
  it.each<[string, Record<string, string>, string[]]>([
    [
      "QStash's token alone",
      { QSTASH_TOKEN: "token" },
      ["QSTASH_CURRENT_SIGNING_KEY", "QSTASH_NEXT_SIGNING_KEY"],
    ],
    [
      "QStash without its next key",
      { QSTASH_TOKEN: "token", QSTASH_CURRENT_SIGNING_KEY: "sig_current" },
      ["QSTASH_NEXT_SIGNING_KEY"],
    ],
    ["QSTASH_URL alone", { QSTASH_URL: "http://127.0.0.1:9" }, ["QSTASH_URL", "QSTASH_TOKEN"]],
    [
      "a malformed DELIVERY_RETRY_SCHEDULE",
      { DELIVERY_RETRY_SCHEDULE: "5s,soon" },
      ["DELIVERY_RETRY_SCHEDULE", "soon"],
    ],
  ])("stops with %s, naming what is wrong", async (_, env, named) => {
    const { code, output } = await startAppExpectingFailure({ INBOX_DIR: await tempDir(), ...env });
    expect(code).not.toBe(0);
    for (const name of named) expect(output).toContain(name);
  });
});
