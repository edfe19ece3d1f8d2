import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { QStashPublisher, type QStashSettings, RetryMessages } from "@/lib/deliveries";
import { type QStashStandIn, signQStashJwt, startQStashStandIn } from "../support/qstash-standin";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/**
 * lib/deliveries/qstash.ts with the real `@upstash/qstash` client and receiver, against the
 * stand-in: what the publisher sends is what QStash takes, and what the stand-in signs is what the
 * SDK's receiver checks (so the integration tests' stand-in signs as QStash does).
 */

let qstash: QStashStandIn;
let destinationServer: WebhookReceiver;
let destination: string;
let settings: QStashSettings;

beforeAll(async () => {
  // A second of delay is 10 ms here.
  qstash = await startQStashStandIn({ delayScale: 0.01, retries: 2, retryDelayMs: 20 });
  destinationServer = await startWebhookReceiver();
  destination = `${destinationServer.url}/api/deliveries/retry`;
  settings = {
    token: qstash.token,
    currentSigningKey: qstash.currentSigningKey,
    nextSigningKey: qstash.nextSigningKey,
    url: qstash.url,
  };
});

afterEach(async () => {
  await qstash.idle();
  qstash.published.length = 0;
  qstash.deliveries.length = 0;
  qstash.signWith("current");
  destinationServer.received.length = 0;
  destinationServer.answer({ status: 204 });
});

afterAll(async () => {
  await qstash?.stop();
  await destinationServer?.stop();
});

const due = (seconds: number) => ({
  reference: "K7QM-3XD9-PTWA-84HC",
  folder: "briefs/2026/11/22/K7QM-3XD9-PTWA-84HC",
  channel: "webhook" as const,
  dueAt: new Date(Date.now() + seconds * 1000).toISOString(),
});

describe("QStashPublisher", () => {
  it("publishes { reference, channel } to the destination with its delay, rounded up, and a deduplication id", async () => {
    const record = due(4.2);
    await new QStashPublisher(settings, destination).publish(record);
    expect(qstash.published).toHaveLength(1);
    const [message] = qstash.published;
    expect(message).toMatchObject({
      destination,
      method: "POST",
      delaySeconds: 5,
      deduplicationId: `${record.reference}.webhook.${Date.parse(record.dueAt)}`,
    });
    expect(JSON.parse(message!.body)).toEqual({ reference: record.reference, channel: "webhook" });
    expect(message!.headers.authorization).toBe(`Bearer ${qstash.token}`);
    expect(message!.headers["content-type"]).toBe("application/json");
  });

  it("a publish repeated with the same due time is one message", async () => {
    const record = due(1);
    const publisher = new QStashPublisher(settings, destination);
    await publisher.publish(record);
    await publisher.publish(record);
    await qstash.idle();
    expect(qstash.published).toHaveLength(1);
    expect(destinationServer.received).toHaveLength(1);
  });

  it("a due time already past is published with no delay", async () => {
    await new QStashPublisher(settings, destination).publish(due(-30));
    expect(qstash.published[0]?.delaySeconds).toBe(0);
  });

  it("rejects when QStash refuses the token, so the due record is left for the scheduler or cron", async () => {
    const publisher = new QStashPublisher({ ...settings, token: "not-the-token" }, destination);
    await expect(publisher.publish(due(1))).rejects.toThrow();
    expect(qstash.published).toEqual([]);
  });

  it("is delivered after the delay with a signature the receiver accepts, and again on a non-2xx", async () => {
    destinationServer.answer({ status: 503 });
    await new QStashPublisher(settings, destination).publish(due(1));
    await qstash.idle();
    // The first call and QStash's two retries, each signed for this body and URL.
    expect(qstash.deliveries.map((delivery) => [delivery.retried, delivery.status])).toEqual([
      [0, 503],
      [1, 503],
      [2, 503],
    ]);
    const messages = new RetryMessages(settings, destination);
    for (const request of destinationServer.received) {
      expect(request.headers["upstash-retried"]).toBeDefined();
      const signature = String(request.headers["upstash-signature"]);
      expect(await messages.read(signature, request.body)).toEqual({
        valid: true,
        reference: "K7QM-3XD9-PTWA-84HC",
        channel: "webhook",
      });
    }
  });
});

describe("RetryMessages", () => {
  const body = JSON.stringify({ reference: "K7QM-3XD9-PTWA-84HC", channel: "email" });
  const messages = () => new RetryMessages(settings, destination);

  it.each([
    ["the current key", () => settings.currentSigningKey],
    ["the next key (after QStash rolls its keys)", () => settings.nextSigningKey],
  ])("accepts a message signed with %s", async (_, key) => {
    expect(await messages().read(signQStashJwt(key(), destination, body), body)).toEqual({
      valid: true,
      reference: "K7QM-3XD9-PTWA-84HC",
      channel: "email",
    });
  });

  it.each<[string, () => string | null, string?]>([
    ["no signature", () => null],
    ["an empty signature", () => ""],
    ["a signature with another key", () => signQStashJwt("sig_forged", destination, body)],
    ["a signature for another URL", () => signQStashJwt(settings.currentSigningKey, `${destination}x`, body)],
    [
      "a signature for another body",
      () => signQStashJwt(settings.currentSigningKey, destination, body.replace("email", "webhook")),
    ],
    [
      "a signature that expired",
      () => signQStashJwt(settings.currentSigningKey, destination, body, Date.now() - 10 * 60_000),
    ],
    ["a signature not yet valid", () => notBefore(settings.currentSigningKey, destination, body, 60)],
    ["not a JWT", () => "Bearer abc"],
  ])("refuses %s", async (_, signature) => {
    expect(await messages().read(signature(), body)).toEqual({ valid: false, why: "signature" });
  });

  it("refuses a signed body that is not JSON", async () => {
    const text = "reference=K7QM";
    expect(await messages().read(signQStashJwt(settings.currentSigningKey, destination, text), text)).toEqual(
      {
        valid: false,
        why: "json",
      },
    );
  });

  it.each<[unknown, string[]]>([
    [{ reference: "K7QM-3XD9-PTWA-84HC", channel: "fax" }, ["channel"]],
    [{ reference: "../../etc", channel: "webhook" }, ["reference"]],
    [{ channel: "webhook" }, ["reference"]],
    [{}, ["reference", "channel"]],
    [[], ["reference", "channel"]],
    ["webhook", ["reference", "channel"]],
  ])("refuses the signed JSON %j, naming %j", async (value, fields) => {
    const text = JSON.stringify(value);
    const message = await messages().read(signQStashJwt(settings.currentSigningKey, destination, text), text);
    expect(message).toMatchObject({ valid: false, why: "fields" });
    expect(Object.keys((message as { fields: Record<string, string> }).fields).sort()).toEqual(
      [...fields].sort(),
    );
  });
});

/** A QStash-shaped JWT whose `nbf` is `seconds` ahead. */
function notBefore(key: string, url: string, body: string, seconds: number): string {
  const [header, claims] = signQStashJwt(key, url, body).split(".") as [string, string];
  const payload = JSON.parse(Buffer.from(claims, "base64url").toString()) as Record<string, number>;
  payload.nbf = Math.floor(Date.now() / 1000) + seconds;
  const changed = Buffer.from(JSON.stringify(payload)).toString("base64url");
  const signature = createHmac("sha256", key).update(`${header}.${changed}`).digest("base64url");
  return `${header}.${changed}.${signature}`;
}
