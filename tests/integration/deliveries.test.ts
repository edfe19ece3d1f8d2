import { randomBytes } from "node:crypto";
import { access, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { briefForm, postContact, validBrief } from "../support/contact";
import { findBriefFolder, readDeliveryJson } from "../support/inbox";
import { runInbox } from "../support/ops";
import { type AppServer, startApp, tempDir } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/**
 * Part 4's deliveries over real HTTP: `next start` with a real webhook receiver and SMTP server,
 * a schedule in seconds, and the store as the one truth (due and failed records in the inbox).
 * Who makes each retry: the first in the request's `after()`, later ones the server's own look
 * every 10 s, or the cron route; QStash has its own file (deliveries-qstash.test.ts).
 */

const FROM = "Studio Intake <intake@studio.example>";
const CRON_SECRET = "cron-secret-for-the-tests-0123456789";

interface Answer {
  reference: string;
  forwarded: string[];
}

async function send(app: AppServer, fields: Record<string, string> = {}): Promise<Answer> {
  const response = await postContact(app.url, briefForm(validBrief(fields)));
  expect(response.status).toBe(200);
  return (await response.json()) as Answer;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

const duePath = (inbox: string, reference: string, channel: string) =>
  join(inbox, "deliveries", "due", `${reference}.${channel}.json`);
const failedPath = (inbox: string, reference: string, channel: string) =>
  join(inbox, "deliveries", "failed", `${reference}.${channel}.json`);

/** Waits until `check` holds (polled), up to `timeout` ms. */
async function until(check: () => boolean | Promise<boolean>, timeout = 20_000): Promise<void> {
  await expect.poll(check, { timeout, interval: 100 }).toBe(true);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The brief's delivery.json once written: the answer waits for it only a short while (a slow
 * machine may answer first), so tests poll rather than read it at once.
 */
async function deliveryOf(
  inbox: string,
  reference: string,
): Promise<Record<string, Record<string, unknown>>> {
  await until(async () => (await readDeliveryJson(inbox, reference, { waitMs: 0 })) !== null, 10_000);
  return (await readDeliveryJson(inbox, reference)) as unknown as Record<string, Record<string, unknown>>;
}

describe("a long-lived server with the webhook and email, retrying on 1s,1s,1s", () => {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  let receiver: WebhookReceiver;
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    smtp = await startSmtpServer();
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      WEBHOOK_URL: `${receiver.url}/intake`,
      WEBHOOK_SECRET: secret,
      SMTP_URL: smtp.url,
      EMAIL_FROM: FROM,
      EMAIL_TO: "ops@studio.example",
      NOTIFY_TIMEOUT_MS: "1000",
      DELIVERY_RETRY_SCHEDULE: "1s,1s,1s",
    });
  });

  afterEach(() => {
    receiver.answer({ status: 204 });
    receiver.onRequest(null);
    smtp.behave("accept");
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.stop();
    await smtp?.stop();
  });

  it("a receiver down for its first two attempts gets the brief on the third: one webhook-id, three valid signatures, the log, no due record left", async () => {
    receiver.answer({ status: 503 });
    let reference = "";
    receiver.onRequest(async () => {
      // The answer of each request is chosen before this runs: the third request gets the 204.
      if (reference !== "" && receiver.forReference(reference).length >= 2) receiver.answer({ status: 204 });
    });
    const answer = await send(app);
    reference = answer.reference;
    expect(answer.forwarded).toEqual(["email"]);
    await until(() => exists(duePath(inbox, reference, "webhook")), 10_000);

    await until(async () => (await readDeliveryJson(inbox, reference))?.webhook?.ok === true);
    const requests = receiver.forReference(reference);
    expect(requests).toHaveLength(3);
    const verifier = new Webhook(secret);
    for (const request of requests) {
      expect(request.headers["webhook-id"]).toBe(`msg_${reference}`);
      expect(() =>
        verifier.verify(request.body, {
          "webhook-id": String(request.headers["webhook-id"]),
          "webhook-timestamp": String(request.headers["webhook-timestamp"]),
          "webhook-signature": String(request.headers["webhook-signature"]),
        }),
      ).not.toThrow();
    }
    const webhook = (await readDeliveryJson(inbox, reference))?.webhook as unknown as {
      state: string;
      attempts: number;
      log: { ok: boolean; status?: number }[];
    };
    expect(webhook.state).toBe("delivered");
    expect(webhook.attempts).toBe(3);
    expect(webhook.log.map((entry) => [entry.ok, entry.status])).toEqual([
      [false, 503],
      [false, 503],
      [true, 204],
    ]);
    // The email, delivered at once, logs the SMTP server's reply code.
    const email = (await readDeliveryJson(inbox, reference))?.email as unknown as {
      log: { ok: boolean; status?: number }[];
    };
    expect(email.log.map((entry) => [entry.ok, entry.status])).toEqual([[true, 250]]);
    // The due record is released after delivery.json is written (a crash between leaves one that
    // the next claimant finds delivered and releases): it goes a moment after the log.
    await until(async () => !(await exists(duePath(inbox, reference, "webhook"))), 10_000);
    expect(await exists(failedPath(inbox, reference, "webhook"))).toBe(false);
    // Delivered the first time: the email was never sent again.
    expect(smtp.forReference(reference)).toHaveLength(1);
  });

  it("410 from the receiver: failed at once, logged once, and ops get one email naming the channel and the reference", async () => {
    receiver.answer({ status: 410 });
    const { reference } = await send(app, {
      description: "A private detail: ALERT-MARKER-4711 and more text.",
    });
    const { webhook } = await deliveryOf(inbox, reference);
    expect(webhook).toMatchObject({ state: "failed", ok: false, attempts: 1, error: "answered HTTP 410" });
    expect(webhook).not.toHaveProperty("nextAttemptAt");
    // The failed record follows delivery.json, after the answer, and the due record goes last.
    await until(() => exists(failedPath(inbox, reference, "webhook")), 10_000);
    await until(async () => !(await exists(duePath(inbox, reference, "webhook"))), 10_000);

    const alertSubject = `Delivery failed: webhook for brief ${reference}`;
    await until(() => smtp.received.some((mail) => mail.parsed.subject === alertSubject), 10_000);
    await pause(2_500);
    const alerts = smtp.received.filter((mail) => mail.parsed.subject === alertSubject);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.envelope.to).toEqual(["ops@studio.example"]);
    expect(alerts[0]?.parsed.text).toContain("answered HTTP 410");
    expect(alerts[0]?.parsed.text).not.toContain("ALERT-MARKER-4711");
    expect(receiver.forReference(reference)).toHaveLength(1);
    expect(app.output()).toContain(`[delivery] ${reference} webhook gave up: answered HTTP 410`);
    expect(app.output().split(`${reference} webhook gave up`).length - 1).toBe(1);
  });

  it("an email channel whose server answers 550: failed, and one brief.delivery_failed webhook event", async () => {
    smtp.behave({ refuse: 550 });
    const { reference, forwarded } = await send(app);
    expect(forwarded).toEqual(["webhook"]);
    const { email } = await deliveryOf(inbox, reference);
    expect(email).toMatchObject({ state: "failed", attempts: 1 });
    const events = () =>
      receiver
        .forReference(reference)
        .map((request) => JSON.parse(request.body) as Record<string, unknown>)
        .filter((event) => event.type === "brief.delivery_failed");
    await until(() => events().length > 0, 10_000);
    await pause(2_500);
    expect(events()).toEqual([
      {
        type: "brief.delivery_failed",
        reference,
        channel: "email",
        error: expect.stringContaining("550"),
        attempts: 1,
      },
    ]);
    const [event] = receiver
      .forReference(reference)
      .filter((request) => request.body.includes("brief.delivery_failed"));
    expect(() =>
      new Webhook(secret).verify(event?.body ?? "", {
        "webhook-id": String(event?.headers["webhook-id"]),
        "webhook-timestamp": String(event?.headers["webhook-timestamp"]),
        "webhook-signature": String(event?.headers["webhook-signature"]),
      }),
    ).not.toThrow();
  });

  it("a schedule that runs out: failed after its last step, with one alert, never two", async () => {
    receiver.answer({ status: 500 });
    const { reference } = await send(app);
    await until(
      async () =>
        (await readDeliveryJson(inbox, reference))?.webhook?.error !== undefined &&
        ((await readDeliveryJson(inbox, reference))?.webhook as unknown as { state: string }).state ===
          "failed",
      40_000,
    );
    // 1 attempt + 3 retries (1s,1s,1s).
    expect(receiver.forReference(reference)).toHaveLength(4);
    // The log says failed first; then the failed record is made, ops are told, and last (under the
    // attempt's claim until then) the due record goes.
    await until(() => exists(failedPath(inbox, reference, "webhook")), 10_000);
    await until(async () => !(await exists(duePath(inbox, reference, "webhook"))), 10_000);
    const failed = JSON.parse(await readFile(failedPath(inbox, reference, "webhook"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(failed).toMatchObject({ reference, channel: "webhook", error: "answered HTTP 500" });
    const subject = `Delivery failed: webhook for brief ${reference}`;
    await until(() => smtp.received.some((mail) => mail.parsed.subject === subject), 10_000);
    await pause(3_000);
    expect(smtp.received.filter((mail) => mail.parsed.subject === subject)).toHaveLength(1);
    expect(receiver.forReference(reference)).toHaveLength(4);
  });

  it("a brief erased while retrying: its due record goes with it and nothing more is sent", async () => {
    receiver.answer({ status: 503 });
    const email = `erase-${randomBytes(4).toString("hex")}@example.com`;
    const { reference } = await send(app, { email });
    await until(() => exists(duePath(inbox, reference, "webhook")), 10_000);
    const erased = await runInbox(["erase", email, "--confirm", email], { env: { INBOX_DIR: inbox } });
    expect(erased.code).toBe(0);
    expect(await exists(duePath(inbox, reference, "webhook"))).toBe(false);
    const sent = receiver.forReference(reference).length;
    await pause(4_000);
    expect(receiver.forReference(reference)).toHaveLength(sent);
    expect(await findBriefFolder(inbox, reference)).toBeUndefined();
  });
});

describe("a receiver slower than Part 4's 60 s lease, with the server's look and cron calls running", () => {
  let receiver: WebhookReceiver;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      WEBHOOK_URL: `${receiver.url}/intake`,
      NOTIFY_TIMEOUT_MS: "75000",
      DELIVERY_RETRY_SCHEDULE: "1s,1s,1s",
      CRON_SECRET,
    });
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.stop();
  });

  it("sees one request per scheduled attempt, never two at once, and every cron call answers within 8 s", async () => {
    receiver.answer({ status: 503 });
    let requests = 0;
    receiver.onRequest(async () => {
      requests++;
      // The first attempt fails at once; the retry (answered 204) hangs past the old 60 s lease.
      if (requests === 1) receiver.answer({ status: 204 });
      if (requests === 2) await pause(66_000);
    });
    const { reference } = await send(app);
    await until(() => receiver.forReference(reference).length === 2, 15_000);

    const slowest = { ms: 0 };
    while (
      receiver.forReference(reference).length < 3 &&
      (await deliveryStateOf(reference)) !== "delivered"
    ) {
      const started = Date.now();
      const run = await fetch(`${app.url}/api/cron/deliveries`, {
        headers: { authorization: `Bearer ${CRON_SECRET}` },
      });
      slowest.ms = Math.max(slowest.ms, Date.now() - started);
      expect(run.status).toBe(200);
      await pause(3_000);
    }
    expect(slowest.ms).toBeLessThan(8_000);
    await until(async () => (await deliveryStateOf(reference)) === "delivered", 20_000);
    // Past the old lease the look (or a cron call) would have claimed the retry again.
    await pause(12_000);
    expect(receiver.forReference(reference)).toHaveLength(2);
    const webhook = (await readDeliveryJson(inbox, reference))?.webhook as unknown as {
      attempts: number;
      log: { ok: boolean; status?: number }[];
    };
    expect(webhook.attempts).toBe(2);
    expect(webhook.log.map((entry) => [entry.ok, entry.status])).toEqual([
      [false, 503],
      [true, 204],
    ]);
    expect(await exists(duePath(inbox, reference, "webhook"))).toBe(false);
  }, 150_000);

  const deliveryStateOf = async (reference: string) =>
    ((await readDeliveryJson(inbox, reference, { waitMs: 0 }))?.webhook as { state?: string } | undefined)
      ?.state;
});

describe("an erase while an attempt hangs", () => {
  let receiver: WebhookReceiver;
  let smtp: SmtpTestServer;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    smtp = await startSmtpServer();
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      WEBHOOK_URL: `${receiver.url}/intake`,
      SMTP_URL: smtp.url,
      EMAIL_FROM: FROM,
      EMAIL_TO: "ops@studio.example",
      NOTIFY_TIMEOUT_MS: "20000",
      // One retry: the hung one, whose failure would give up and alert ops.
      DELIVERY_RETRY_SCHEDULE: "1s",
    });
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.stop();
    await smtp?.stop();
  });

  /** Every folder under `path` that holds nothing. */
  async function emptyFolders(path: string): Promise<string[]> {
    const entries = await readdir(path, { recursive: true, withFileTypes: true });
    const empty: string[] = [];
    for (const entry of entries.filter((candidate) => candidate.isDirectory())) {
      const folder = join(entry.parentPath, entry.name);
      if ((await readdir(folder)).length === 0) empty.push(folder.slice(path.length + 1));
    }
    return empty;
  }

  it("leaves nothing behind for the erased reference, no empty folder, and nothing sent after it answered", async () => {
    receiver.answer({ status: 503 });
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let requests = 0;
    receiver.onRequest(async () => {
      if (++requests === 2) await held;
    });
    const email = `erase-hung-${randomBytes(4).toString("hex")}@example.com`;
    const { reference } = await send(app, { email });
    await until(() => receiver.forReference(reference).length === 2, 15_000);

    const erased = await runInbox(["erase", email, "--confirm", email], { env: { INBOX_DIR: inbox } });
    expect(erased.code).toBe(0);
    const sent = receiver.forReference(reference).length;
    const mails = smtp.received.length;
    // The hung attempt fails now (503), after the erase answered: it would give up and tell ops.
    release();
    await pause(5_000);

    expect(receiver.forReference(reference)).toHaveLength(sent);
    expect(smtp.received.slice(mails).filter((mail) => mail.parsed.subject?.includes(reference))).toEqual([]);
    const files = await readdir(inbox, { recursive: true });
    expect(files.filter((path) => path.includes(reference))).toEqual([]);
    expect(await emptyFolders(inbox)).toEqual([]);
    expect(await findBriefFolder(inbox, reference)).toBeUndefined();
  }, 60_000);
});

describe("GET /api/cron/deliveries while an attempt hangs", () => {
  let receiver: WebhookReceiver;
  let inbox: string;
  let app: AppServer;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    inbox = await tempDir();
    app = await startApp({
      INBOX_DIR: inbox,
      WEBHOOK_URL: `${receiver.url}/intake`,
      NOTIFY_TIMEOUT_MS: "30000",
      DELIVERY_RETRY_SCHEDULE: "2m,2m",
      VERCEL: "1",
      TRUSTED_PROXY_HOPS: "0",
      CRON_SECRET,
    });
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.stop();
  });

  it("answers within 8 s; the attempt it left records its own outcome later, once", async () => {
    receiver.answer({ status: 503 });
    const { reference } = await send(app);
    const due = duePath(inbox, reference, "webhook");
    await until(() => exists(due), 10_000);
    const record = JSON.parse(await readFile(due, "utf8")) as Record<string, unknown>;
    await writeFile(due, JSON.stringify({ ...record, dueAt: new Date(Date.now() - 1000).toISOString() }));
    receiver.answer({ status: 204 });
    receiver.onRequest(async () => {
      await pause(12_000);
    });

    const started = Date.now();
    const run = await fetch(`${app.url}/api/cron/deliveries`, {
      headers: { authorization: `Bearer ${CRON_SECRET}` },
    });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(await run.json()).toEqual({ ok: true, attempted: 0, delivered: 0, failed: 0, retrying: 0 });
    expect(receiver.forReference(reference)).toHaveLength(2);
    // Another call while it hangs: the attempt is claimed, so nothing is sent again.
    expect(
      await (
        await fetch(`${app.url}/api/cron/deliveries`, { headers: { authorization: `Bearer ${CRON_SECRET}` } })
      ).json(),
    ).toMatchObject({ attempted: 0 });

    await until(async () => !(await exists(due)), 20_000);
    const webhook = (await readDeliveryJson(inbox, reference))?.webhook as unknown as {
      state: string;
      attempts: number;
    };
    expect(webhook).toMatchObject({ state: "delivered", attempts: 2 });
    expect(receiver.forReference(reference)).toHaveLength(2);
  }, 60_000);
});

describe("GET /api/cron/deliveries, as on Vercel (no long-lived look, no wait in after())", () => {
  let receiver: WebhookReceiver;
  let inbox: string;
  let app: AppServer;
  let off: AppServer;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    inbox = await tempDir();
    const env = {
      INBOX_DIR: inbox,
      WEBHOOK_URL: `${receiver.url}/intake`,
      NOTIFY_TIMEOUT_MS: "1000",
      // Past the minute the first retry may wait in after(): only the cron route makes it.
      DELIVERY_RETRY_SCHEDULE: "2m,2m",
      VERCEL: "1",
      TRUSTED_PROXY_HOPS: "0",
    };
    [app, off] = await Promise.all([
      startApp({ ...env, CRON_SECRET }),
      startApp({ ...env, INBOX_DIR: await tempDir() }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([app?.stop(), off?.stop()]);
    await receiver?.stop();
  });

  const cron = (server: AppServer, token: string | null) =>
    fetch(
      `${server.url}/api/cron/deliveries`,
      token === null ? {} : { headers: { authorization: `Bearer ${token}` } },
    );

  it("is 404 without CRON_SECRET and 401 without its token, making no attempt", async () => {
    expect((await cron(off, CRON_SECRET)).status).toBe(404);
    const refused = await cron(app, "not-the-secret-at-all-0123456789");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="cron"');
    expect((await cron(app, null)).status).toBe(401);
  });

  it("makes the attempts that are due and nothing else", async () => {
    receiver.answer({ status: 503 });
    const { reference } = await send(app);
    const due = duePath(inbox, reference, "webhook");
    await until(() => exists(due), 10_000);

    // Not due yet: nothing is attempted.
    const early = await cron(app, CRON_SECRET);
    expect(early.status).toBe(200);
    expect(await early.json()).toEqual({ ok: true, attempted: 0, delivered: 0, failed: 0, retrying: 0 });
    expect(receiver.forReference(reference)).toHaveLength(1);

    // The store says it is due now (as two minutes later would).
    const record = JSON.parse(await readFile(due, "utf8")) as Record<string, unknown>;
    await writeFile(due, JSON.stringify({ ...record, dueAt: new Date(Date.now() - 1000).toISOString() }));
    receiver.answer({ status: 204 });
    const run = await cron(app, CRON_SECRET);
    expect(await run.json()).toEqual({ ok: true, attempted: 1, delivered: 1, failed: 0, retrying: 0 });
    expect(receiver.forReference(reference)).toHaveLength(2);
    expect(await exists(due)).toBe(false);

    // Done: another call has nothing to do.
    expect(await (await cron(app, CRON_SECRET)).json()).toMatchObject({ attempted: 0 });
    expect(receiver.forReference(reference)).toHaveLength(2);
  });
});

describe("two servers sharing one Blob store", () => {
  let standIn: BlobStandIn;
  let receiver: WebhookReceiver;
  let first: AppServer;
  let second: AppServer;

  beforeAll(async () => {
    standIn = await startBlobStandIn();
    receiver = await startWebhookReceiver();
    const env = {
      ...blobEnv(standIn.token, standIn.origin),
      WEBHOOK_URL: `${receiver.url}/intake`,
      NOTIFY_TIMEOUT_MS: "1000",
      // Two seconds: time to line up six cron calls on the due attempt, racing the first server's after().
      DELIVERY_RETRY_SCHEDULE: "2s,2s",
      CRON_SECRET,
    };
    [first, second] = await Promise.all([startApp(env), startApp(env)]);
  });

  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await receiver?.stop();
    await standIn?.close();
  });

  it("a receiver that fails once gets exactly one retry, whichever server makes it", async () => {
    receiver.answer({ status: 503 });
    const answer = await send(first);
    const { reference } = answer;
    // The first attempt was made within the request: every later one is answered 204.
    receiver.answer({ status: 204 });
    // At the due time, both servers are asked three times each at once, beside the first server's
    // own wait in after() and both servers' looks: every one of them races for the same attempt.
    const due = standIn.objects.get(`deliveries/due/${reference}.webhook.json`);
    const { dueAt } = JSON.parse(due?.body.toString("utf8") ?? "{}") as { dueAt: string };
    await pause(Math.max(0, Date.parse(dueAt) - Date.now()));
    const runs = await Promise.all(
      [first, second, first, second, first, second].map(async (server) => {
        const response = await fetch(`${server.url}/api/cron/deliveries`, {
          headers: { authorization: `Bearer ${CRON_SECRET}` },
        });
        return ((await response.json()) as { attempted: number }).attempted;
      }),
    );
    expect(runs.reduce((sum, attempted) => sum + attempted, 0)).toBeLessThanOrEqual(1);
    expect(answer.forwarded).toEqual([]);
    // The first retry is due in about a second; both servers look every 10 s and the first waits in after().
    await until(() => receiver.forReference(reference).length >= 2, 20_000);
    await pause(12_000);
    expect(receiver.forReference(reference)).toHaveLength(2);
    const dueLeft = [...standIn.objects.keys()].filter((path) => path.startsWith("deliveries/due/"));
    expect(dueLeft).toEqual([]);
  });
});
