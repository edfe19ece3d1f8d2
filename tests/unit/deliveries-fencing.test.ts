import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { parseDeliveryRecord } from "@/lib/briefs";
import { leaseFor } from "@/lib/deliveries";
import { duePath, failedPath, writeDue } from "@/lib/deliveries/records";
import { WebhookChannel } from "@/lib/notify/webhook";
import type { ObjectStore } from "@/lib/store";
import { BlobStore } from "@/lib/store/blob";
import { FilesystemStore } from "@/lib/store/filesystem";
import { eraseFolders } from "@/lib/ops/erase";
import type { BlobStandIn } from "../support/blob-standin";
import { withBlobStandIn } from "../support/blob-vitest";
import { deliveriesFor, deliveryBrief } from "../support/deliveries";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/**
 * Part 5's fenced claims, on both inbox drivers: a receiver that answers long after Part 4's
 * 60 s lease, while other servers, cron calls and QStash's callback keep looking, gets one request
 * per scheduled attempt; and a claimant whose claim is gone records nothing. Time past the lease
 * is the callers' `now` (a claim judges leases by it), the receiver's hang is real.
 */

const reference = "K7QM-3XD9-PTWA-84HC";
const folder = `briefs/2026/11/22/${reference}`;
const NOTIFY_TIMEOUT_MS = 75_000;

const brief = () => deliveryBrief(reference);

let standIn: BlobStandIn;
withBlobStandIn((ready) => (standIn = ready));

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.stop();
});

const until = async (condition: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

vi.setConfig({ testTimeout: 30_000 });

describe.each([
  ["the filesystem inbox", "filesystem"],
  ["the Blob inbox", "blob"],
] as const)("fenced claims on %s", (_label, driver) => {
  let dir: string;
  let store: ObjectStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "fencing-"));
    store = driver === "filesystem" ? new FilesystemStore(dir) : new BlobStore(standIn.token);
    receiver.received.length = 0;
    receiver.onRequest(null);
    receiver.answer({ status: 204 });
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
  });

  afterEach(async () => {
    receiver.onRequest(null);
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  /** A server: its own Deliveries over the shared store, the webhook its channel. */
  const server = () =>
    deliveriesFor(store, {
      channels: [new WebhookChannel(receiver.url, null)],
      notifyTimeoutMs: NOTIFY_TIMEOUT_MS,
      retrySchedule: [1_000, 1_000, 1_000],
    });
  const readDelivery = async () =>
    parseDeliveryRecord(
      JSON.parse(Buffer.from((await store.get(`${folder}/delivery.json`)) ?? "{}").toString()),
    );
  /** Holds each request the receiver gets until `release` is called; answered `status` then. */
  const holdRequests = () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    receiver.onRequest(() => held);
    return { release };
  };

  const prepare = async () => {
    await store.put(`${folder}/brief.json`, JSON.stringify(brief()), "application/json");
    const t0 = new Date();
    await writeDue(store, {
      reference,
      folder,
      channel: "webhook",
      dueAt: new Date(t0.getTime() - 1).toISOString(),
    });
    return t0;
  };

  it("a receiver answering after Part 4's 60 s lease, with schedulers, cron calls and QStash looking, gets one request", async () => {
    const t0 = await prepare();
    const hold = holdRequests();
    receiver.answer({ status: 503 });
    const first = server().deliveries;
    const running = first.runDue({ now: t0 });
    await until(() => receiver.received.length === 1);

    // Other servers' looks, cron calls and QStash's callback, at times past 60 s but within the lease.
    const lease = leaseFor(NOTIFY_TIMEOUT_MS);
    expect(lease).toBeGreaterThan(2 * NOTIFY_TIMEOUT_MS);
    for (const later of [61_000, 90_000, 120_000, lease - 1_000]) {
      const now = new Date(t0.getTime() + later);
      const other = server().deliveries;
      expect(await other.runDue({ now, signal: AbortSignal.timeout(3_000) })).toMatchObject({ attempted: 0 });
      expect(await other.attemptIfDue(reference, "webhook", { now })).toMatchObject({
        made: false,
        why: "leased",
      });
      expect(await first.runDue({ now, signal: AbortSignal.timeout(3_000) })).toMatchObject({ attempted: 0 });
    }
    expect(receiver.forReference(reference)).toHaveLength(1);

    hold.release();
    expect(await running).toMatchObject({ attempted: 1, retrying: 1 });
    const webhook = (await readDelivery()).webhook;
    expect(webhook).toMatchObject({ state: "retrying", attempts: 1 });
    expect(webhook?.log.map((entry) => entry.status)).toEqual([503]);
    expect(receiver.forReference(reference)).toHaveLength(1);
  });

  it("a claimant whose claim was taken over records nothing and schedules nothing", async () => {
    const t0 = await prepare();
    let calls = 0;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    // The first request hangs (and then fails); the second, the next claimant's, is delivered.
    receiver.onRequest(async () => {
      if (calls++ === 0) {
        receiver.answer({ status: 204 });
        await held;
      }
    });
    receiver.answer({ status: 503 });
    const first = server().deliveries;
    const running = first.attemptIfDue(reference, "webhook", { now: t0 });
    await until(() => receiver.received.length === 1);

    // Past the whole lease, as far as the next claimant can tell: it takes the attempt over.
    const now = new Date(t0.getTime() + leaseFor(NOTIFY_TIMEOUT_MS) + 1);
    const second = await server().deliveries.attemptIfDue(reference, "webhook", { now });
    expect(second).toMatchObject({ made: true, record: { state: "delivered" } });

    release();
    expect(await running).toMatchObject({ made: false, why: "lost" });
    const webhook = (await readDelivery()).webhook;
    expect(webhook).toMatchObject({ state: "delivered", attempts: 1 });
    expect(webhook?.log.map((entry) => [entry.ok, entry.status])).toEqual([[true, 204]]);
    expect(await store.get(duePath(reference, "webhook"))).toBeNull();
    expect(await store.get(failedPath(reference, "webhook"))).toBeNull();
    expect(receiver.forReference(reference)).toHaveLength(2);
  });

  it("an erase landing between an attempt's send and its record: nothing it writes survives, nothing more is sent", async () => {
    const t0 = await prepare();
    receiver.answer({ status: 503 });
    let erasing: Promise<void> | null = null;
    // The erase runs just as the attempt, its send made, reads delivery.json to record it.
    const racing = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property !== "getVersioned" || typeof value !== "function") {
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        }
        return async (path: string, ...rest: unknown[]) => {
          if (path === `${folder}/delivery.json` && erasing === null) {
            erasing = eraseFolders(store, "briefs", [folder]);
            await erasing;
          }
          return (value as (...a: unknown[]) => unknown).apply(target, [path, ...rest]);
        };
      },
    }) as ObjectStore;
    const { deliveries, alerts } = deliveriesFor(racing, {
      channels: [new WebhookChannel(receiver.url, null)],
      notifyTimeoutMs: NOTIFY_TIMEOUT_MS,
      retrySchedule: [1_000],
    });
    expect(await deliveries.attemptIfDue(reference, "webhook", { now: t0 })).toMatchObject({
      made: false,
      why: "lost",
    });
    expect(erasing).not.toBeNull();
    const left: string[] = [];
    for await (const info of store.list("")) left.push(info.path);
    expect(left.filter((path) => path.includes(reference))).toEqual([]);
    expect(alerts).toEqual([]);
    expect(await deliveries.runDue({ now: new Date(t0.getTime() + 3_600_000) })).toMatchObject({
      attempted: 0,
    });
    expect(receiver.forReference(reference)).toHaveLength(1);
  });

  it.each([
    ["a retry due (503)", 503],
    ["a channel that gave up (410)", 410],
  ])(
    "an erase during a brief's first attempts, %s: nothing they write survives, no alert, no retry",
    async (_case, status) => {
      await store.put(`${folder}/brief.json`, JSON.stringify(brief()), "application/json");
      const hold = holdRequests();
      receiver.answer({ status });
      const { deliveries, alerts } = deliveriesFor(store, {
        channels: [new WebhookChannel(receiver.url, null)],
        notifyTimeoutMs: 5_000,
        retrySchedule: [500],
      });
      const first = deliveries.deliverNew(
        { record: brief(), attachment: null, folder },
        { acknowledge: false, waitForRecord: true },
      );
      await until(() => receiver.received.length === 1);
      // Erased (and answered) while the first attempt waits on the receiver.
      await eraseFolders(store, "briefs", [folder]);
      hold.release();
      await first;
      // Past the retry's due time, and the after-answer follow-up (an alert, the retry) given time.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const left: string[] = [];
      for await (const info of store.list("")) left.push(info.path);
      expect(left.filter((path) => path.includes(reference))).toEqual([]);
      expect(alerts).toEqual([]);
      expect(receiver.forReference(reference)).toHaveLength(1);
    },
  );

  it("a round bounded by its signal answers at once; the attempt under way records its own outcome", async () => {
    const t0 = await prepare();
    const hold = holdRequests();
    const { deliveries } = server();
    const started = Date.now();
    const counts = await deliveries.runDue({ now: t0, signal: AbortSignal.timeout(500) });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(counts).toEqual({ attempted: 0, delivered: 0, failed: 0, retrying: 0 });
    // The attempt goes on after the round: on a loaded machine its request may arrive after 500 ms.
    await until(() => receiver.forReference(reference).length > 0);
    expect(receiver.forReference(reference)).toHaveLength(1);
    hold.release();
    // Its log first, then its due record's removal: both, by the attempt itself.
    await until(async () => (await store.get(duePath(reference, "webhook"))) === null);
    expect((await readDelivery()).webhook?.state).toBe("delivered");
  });
});

describe("a long-lived server's look", () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "look-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("with 1,000 due records: one listing a look, and no record read again until it changes", async () => {
    const real = new FilesystemStore(dir);
    const calls = { list: 0, reads: 0 };
    const counted = new Proxy(real, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (property === "list") calls.list++;
          if (property === "get" || property === "getVersioned" || property === "getStream") calls.reads++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as ObjectStore;
    const dueAt = new Date(Date.now() + 3_600_000).toISOString();
    const references = Array.from(
      { length: 1_000 },
      (_, index) => `K7QM-3XD9-PTWA-${String(index).padStart(4, "0")}`,
    );
    await real.putAll(
      references.map((ref) => ({
        path: duePath(ref, "webhook"),
        body: `${JSON.stringify({ reference: ref, folder: `briefs/2026/11/22/${ref}`, channel: "webhook", dueAt })}\n`,
        contentType: "application/json",
      })),
    );
    const { deliveries } = deliveriesFor(counted);

    await deliveries.runDue();
    expect(calls).toEqual({ list: 1, reads: 1_000 });

    for (let look = 0; look < 3; look++) await deliveries.runDue();
    expect(calls).toEqual({ list: 4, reads: 1_000 });

    // One record moved (a later retry), one new, one gone: only the two are read.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await writeDue(real, {
      reference: references[7]!,
      folder: `briefs/2026/11/22/${references[7]!}`,
      channel: "webhook",
      dueAt: new Date(Date.now() + 7_200_000).toISOString(),
    });
    await writeDue(real, {
      reference: "NEWW-NEWW-NEWW-NEWW",
      folder: "briefs/2026/11/22/NEWW-NEWW-NEWW-NEWW",
      channel: "email",
      dueAt,
    });
    await real.delete(duePath(references[9]!, "webhook"));
    await deliveries.runDue();
    expect(calls).toEqual({ list: 5, reads: 1_002 });
  });
});
