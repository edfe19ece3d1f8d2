import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ChannelDelivery, parseDeliveryRecord, writeDelivery } from "@/lib/briefs";
import { nextAttemptAt } from "@/lib/deliveries";
import { recordAttempt } from "@/lib/deliveries/log";
import { claimDue, duePath, failedPath, LEASE_MS, writeDue } from "@/lib/deliveries/records";
import { ACKNOWLEDGMENT_RETRY_WINDOW_MS } from "@/lib/deliveries/schedule";
import {
  type BriefNotice,
  type Channel,
  type ChannelName,
  classifyFailure,
  DeliveryError,
  parseRetryAfter,
  retryableStatus,
} from "@/lib/notify";
import { FilesystemStore } from "@/lib/store/filesystem";
import { deliveriesFor, deliveryBrief } from "../support/deliveries";

describe("what is worth retrying", () => {
  it.each([
    [408, true],
    [425, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [599, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [410, false],
    [422, false],
    [499, false],
  ])("webhook HTTP %i -> %s", (status, expected) => {
    expect(retryableStatus(status)).toBe(expected);
  });

  const smtp = (code: number) => Object.assign(new Error(`${code} reply`), { responseCode: code });

  it.each<[string, unknown, { retryable: boolean; status?: number }]>([
    [
      "a classified failure says so itself",
      new DeliveryError("x", { retryable: false, status: 410 }),
      { retryable: false, status: 410 },
    ],
    ["an SMTP 5xx reply is final", smtp(550), { retryable: false, status: 550 }],
    ["an SMTP 4xx reply is temporary", smtp(421), { retryable: true, status: 421 }],
    [
      "the reply code is found on a cause",
      new Error("wrapped", { cause: smtp(554) }),
      { retryable: false, status: 554 },
    ],
    [
      "a refused connection",
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
      { retryable: true },
    ],
    ["a timeout", new Error("no answer within 5000 ms"), { retryable: true }],
    ["not even an Error", "something", { retryable: true }],
  ])("%s", (_label, error, expected) => {
    expect(classifyFailure(error)).toEqual(expected);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-22T10:00:00.000Z");
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ["120", 120_000],
    [" 0 ", 0],
    ["Sun, 22 Nov 2026 10:02:00 GMT", 120_000],
    ["Sun, 22 Nov 2026 09:00:00 GMT", 0],
    ["soon", undefined],
    ["-5", undefined],
    ["999999999", 24 * 3_600_000],
  ])("%j -> %j", (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe("nextAttemptAt", () => {
  const now = new Date("2026-11-22T10:00:00.000Z");
  const schedule = [5_000, 300_000];
  const after = (ms: number) => new Date(now.getTime() + ms);

  it("waits the step for the attempt just failed, varied by at most ±10%", () => {
    expect(nextAttemptAt(schedule, 1, { retryable: true }, now, () => 0.5)).toEqual(after(5_000));
    expect(nextAttemptAt(schedule, 1, { retryable: true }, now, () => 0)).toEqual(after(4_500));
    expect(nextAttemptAt(schedule, 1, { retryable: true }, now, () => 0.999999)).toEqual(after(5_500));
    expect(nextAttemptAt(schedule, 2, { retryable: true }, now, () => 0.5)).toEqual(after(300_000));
  });

  it("has none once the schedule has run out, or for a failure not worth retrying", () => {
    expect(nextAttemptAt(schedule, 3, { retryable: true }, now, () => 0.5)).toBeNull();
    expect(nextAttemptAt(schedule, 1, { retryable: false, status: 410 }, now, () => 0.5)).toBeNull();
    expect(nextAttemptAt([], 1, { retryable: true }, now, () => 0.5)).toBeNull();
  });

  it("honours Retry-After, but never more than an hour past the step", () => {
    expect(nextAttemptAt(schedule, 1, { retryable: true, retryAfterMs: 60_000 }, now, () => 0.5)).toEqual(
      after(60_000),
    );
    // Shorter than the step: the step stands.
    expect(nextAttemptAt(schedule, 2, { retryable: true, retryAfterMs: 1_000 }, now, () => 0.5)).toEqual(
      after(300_000),
    );
    expect(
      nextAttemptAt(schedule, 2, { retryable: true, retryAfterMs: 10 * 3_600_000 }, now, () => 0.5),
    ).toEqual(after(300_000 + 3_600_000));
  });
});

describe("the delivery log", () => {
  const failure = (at: string) => ({
    ok: false,
    at,
    ms: 12,
    error: "answered HTTP 503",
    failure: { retryable: true, status: 503 },
  });

  it("counts every attempt, keeps the last 20, and says what comes next", () => {
    let record: ChannelDelivery | undefined;
    for (let index = 0; index < 25; index++) {
      record = recordAttempt(
        record,
        failure(`2026-11-22T10:00:${String(index).padStart(2, "0")}.000Z`),
        new Date("2026-11-22T11:00:00.000Z"),
      );
    }
    expect(record?.attempts).toBe(25);
    expect(record?.log).toHaveLength(20);
    expect(record?.log[0]?.at).toBe("2026-11-22T10:00:05.000Z");
    expect(record).toMatchObject({
      state: "retrying",
      ok: false,
      nextAttemptAt: "2026-11-22T11:00:00.000Z",
      error: "answered HTTP 503",
    });
    expect(record?.log.at(-1)).toEqual({
      at: "2026-11-22T10:00:24.000Z",
      ok: false,
      ms: 12,
      status: 503,
      error: "answered HTTP 503",
    });

    const failed = recordAttempt(record, failure("2026-11-22T12:00:00.000Z"), null);
    expect(failed).toMatchObject({ state: "failed", attempts: 26 });
    expect(failed).not.toHaveProperty("nextAttemptAt");

    const delivered = recordAttempt(failed, { ok: true, at: "2026-11-22T13:00:00.000Z", ms: 40 }, null);
    expect(delivered).toEqual({
      state: "delivered",
      ok: true,
      at: "2026-11-22T13:00:00.000Z",
      attempts: 27,
      log: [...failed.log.slice(1), { at: "2026-11-22T13:00:00.000Z", ok: true, ms: 40 }],
    });
  });

  it("reads part 1's records as delivered or failed, that one attempt their log", () => {
    expect(
      parseDeliveryRecord({
        webhook: { ok: false, at: "2026-11-22T10:00:05.000Z", error: "answered HTTP 500" },
        email: { ok: true, at: "2026-11-22T10:00:01.000Z" },
        acknowledgment: { ok: false, at: "2026-11-22T10:00:02.000Z", error: "held", suppressed: true },
        unknown: { anything: true },
      }),
    ).toEqual({
      webhook: {
        state: "failed",
        ok: false,
        at: "2026-11-22T10:00:05.000Z",
        attempts: 1,
        error: "answered HTTP 500",
        log: [{ at: "2026-11-22T10:00:05.000Z", ok: false, ms: 0, error: "answered HTTP 500" }],
      },
      email: {
        state: "delivered",
        ok: true,
        at: "2026-11-22T10:00:01.000Z",
        attempts: 1,
        log: [{ at: "2026-11-22T10:00:01.000Z", ok: true, ms: 0 }],
      },
      acknowledgment: {
        state: "failed",
        ok: false,
        at: "2026-11-22T10:00:02.000Z",
        attempts: 1,
        error: "held",
        suppressed: true,
        log: [{ at: "2026-11-22T10:00:02.000Z", ok: false, ms: 0, error: "held" }],
      },
    });
    expect(() => parseDeliveryRecord([])).toThrow("not a delivery record");
    expect(() => parseDeliveryRecord({ webhook: { ok: "yes" } })).toThrow("not a delivery record");
  });
});

/** A channel whose answers a test sets, one per attempt (the last one repeats). */
function scriptedChannel(name: ChannelName, answers: (Error | "ok")[]): Channel & { calls: number } {
  const channel = {
    name,
    calls: 0,
    async deliver(notice: BriefNotice) {
      expect(notice.record.reference).toBeTruthy();
      const answer = answers[Math.min(channel.calls, answers.length - 1)];
      channel.calls++;
      if (answer !== "ok") throw answer;
      return 202;
    },
  };
  return channel;
}

describe("Deliveries over a real filesystem store", () => {
  let dir: string;
  let store: FilesystemStore;
  const reference = "K7QM-3XD9-PTWA-84HC";
  const folder = `briefs/2026/11/22/${reference}`;
  const record = (receivedAt?: string) => deliveryBrief(reference, receivedAt);
  const unavailable = () => new DeliveryError("answered HTTP 503", { retryable: true, status: 503 });
  const gone = () => new DeliveryError("answered HTTP 410", { retryable: false, status: 410 });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "deliveries-"));
    store = new FilesystemStore(dir);
    vi.spyOn(console, "warn").mockImplementation(() => {});
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  const storeBrief = async (brief = record()) => {
    await store.put(`${folder}/brief.json`, JSON.stringify(brief), "application/json");
    return brief;
  };
  const readDelivery = async () =>
    parseDeliveryRecord(
      JSON.parse(Buffer.from((await store.get(`${folder}/delivery.json`)) ?? "{}").toString()),
    );

  it("records a failure worth retrying with its due record; the retry, once due and claimed, delivers and removes it", async () => {
    const webhook = scriptedChannel("webhook", [unavailable(), "ok"]);
    const { deliveries, alerts } = deliveriesFor(store, { channels: [webhook], retrySchedule: [60_000] });
    const brief = await storeBrief();
    const { forwarded } = await deliveries.deliverNew(
      { record: brief, attachment: null, folder },
      { acknowledge: false, waitForRecord: true },
    );
    expect(forwarded).toEqual([]);
    const due = JSON.parse(Buffer.from((await store.get(duePath(reference, "webhook"))) ?? "").toString());
    expect(due).toEqual({ reference, folder, channel: "webhook", dueAt: expect.any(String) });
    expect((await readDelivery()).webhook).toMatchObject({
      state: "retrying",
      attempts: 1,
      nextAttemptAt: due.dueAt,
    });

    // Not due yet: nothing is attempted, by any caller.
    expect(await deliveries.runDue()).toEqual({ attempted: 0, delivered: 0, failed: 0, retrying: 0 });
    expect(await deliveries.attemptIfDue(reference, "webhook")).toEqual({
      made: false,
      target: "webhook",
      why: "not-due",
    });
    expect(webhook.calls).toBe(1);

    const later = new Date(Date.parse(due.dueAt) + 1);
    expect(await deliveries.runDue({ now: later })).toEqual({
      attempted: 1,
      delivered: 1,
      failed: 0,
      retrying: 0,
    });
    expect(webhook.calls).toBe(2);
    expect((await readDelivery()).webhook).toMatchObject({ state: "delivered", ok: true, attempts: 2 });
    // Every answered attempt's entry says what was answered, the delivered one's included.
    expect((await readDelivery()).webhook?.log.map((entry) => [entry.ok, entry.status])).toEqual([
      [false, 503],
      [true, 202],
    ]);
    expect(await store.get(duePath(reference, "webhook"))).toBeNull();
    expect(alerts).toEqual([]);
  });

  it("a claimed attempt is nobody else's until its lease runs out", async () => {
    await storeBrief();
    const now = new Date();
    await writeDue(store, {
      reference,
      folder,
      channel: "webhook",
      dueAt: new Date(now.getTime() - 1).toISOString(),
    });
    const [one, two] = await Promise.all([
      claimDue(store, reference, "webhook", now),
      claimDue(store, reference, "webhook", now),
    ]);
    expect([one.claimed, two.claimed].sort()).toEqual([false, true]);
    expect(await claimDue(store, reference, "webhook", new Date(now.getTime() + LEASE_MS - 1))).toMatchObject(
      {
        claimed: false,
        why: "leased",
      },
    );
    expect(await claimDue(store, reference, "webhook", new Date(now.getTime() + LEASE_MS + 1))).toMatchObject(
      {
        claimed: true,
      },
    );
    expect(await claimDue(store, "NONE-NONE-NONE-NONE", "webhook", now)).toMatchObject({
      claimed: false,
      why: "missing",
    });
  });

  it("gives up at once on a failure not worth retrying: failed, its failed record, one alert even when told twice", async () => {
    const webhook = scriptedChannel("webhook", [gone()]);
    const { deliveries, alerts } = deliveriesFor(store, { channels: [webhook], retrySchedule: [1_000] });
    const brief = await storeBrief();
    await deliveries.deliverNew(
      { record: brief, attachment: null, folder },
      { acknowledge: false, waitForRecord: true },
    );
    await vi.waitFor(() => expect(alerts).toHaveLength(1));
    expect(alerts).toEqual([{ reference, channel: "webhook", error: "answered HTTP 410", attempts: 1 }]);
    expect((await readDelivery()).webhook).toMatchObject({ state: "failed", attempts: 1 });
    expect(await store.get(failedPath(reference, "webhook"))).not.toBeNull();
    expect(await store.get(duePath(reference, "webhook"))).toBeNull();

    // "Retry now" on a channel that gave up: one more try, still failed, nobody told again.
    const [result] = await deliveries.retryNow({ folder, record: brief }, ["webhook"]);
    expect(result).toMatchObject({ made: true, record: { state: "failed", attempts: 2 } });
    expect(alerts).toHaveLength(1);
    expect(await store.get(duePath(reference, "webhook"))).toBeNull();
  });

  it("a schedule that runs out gives up after its last step, told once", async () => {
    const webhook = scriptedChannel("webhook", [unavailable()]);
    const { deliveries, alerts } = deliveriesFor(store, {
      channels: [webhook],
      retrySchedule: [1_000, 1_000],
    });
    const brief = await storeBrief();
    await deliveries.deliverNew(
      { record: brief, attachment: null, folder },
      { acknowledge: false, waitForRecord: true },
    );
    const far = new Date(Date.now() + 3_600_000);
    expect(await deliveries.runDue({ now: far })).toMatchObject({ attempted: 1, retrying: 1 });
    expect(await deliveries.runDue({ now: new Date(far.getTime() + 3_600_000) })).toMatchObject({
      attempted: 1,
      failed: 1,
    });
    expect(await deliveries.runDue({ now: new Date(far.getTime() + 7_200_000) })).toMatchObject({
      attempted: 0,
    });
    expect(webhook.calls).toBe(3);
    await vi.waitFor(() => expect(alerts).toHaveLength(1));
    expect(alerts[0]).toMatchObject({ channel: "webhook", attempts: 3 });
  });

  it("an erased brief's attempt is dropped with its due record, nothing sent", async () => {
    const webhook = scriptedChannel("webhook", ["ok"]);
    const { deliveries } = deliveriesFor(store, { channels: [webhook] });
    await writeDue(store, { reference, folder, channel: "webhook", dueAt: new Date(0).toISOString() });
    expect(await deliveries.attemptIfDue(reference, "webhook")).toEqual({
      made: false,
      target: "webhook",
      why: "gone",
    });
    expect(webhook.calls).toBe(0);
    // The due record gone, and its emptied folders with it.
    expect(await readdir(dir)).toEqual([]);
  });

  it("a channel no longer configured gives up rather than waiting forever; ops retrying by hand are not emailed", async () => {
    const { deliveries, alerts } = deliveriesFor(store, { channels: [] });
    await storeBrief();
    await writeDelivery(store, folder, { webhook: { ok: false, at: new Date().toISOString(), error: "x" } });
    await writeDue(store, { reference, folder, channel: "webhook", dueAt: new Date(0).toISOString() });
    // A part 1 record reads as failed: only ops' "Retry now" tries it again, not the schedule.
    expect(await deliveries.attemptIfDue(reference, "webhook")).toMatchObject({ made: false, why: "done" });
    const [result] = await deliveries.retryNow({ folder, record: record() }, ["webhook"]);
    expect(result).toMatchObject({
      made: true,
      record: { state: "failed", error: "the webhook channel is not configured here" },
    });
    expect(alerts).toEqual([]);
  });

  it("the acknowledgment is retried only while the brief is young", async () => {
    const failing = {
      acknowledge: async () => ({
        ok: false,
        at: new Date().toISOString(),
        ms: 3,
        error: "421 try later",
        failure: { retryable: true, status: 421 },
      }),
    };
    const { deliveries } = deliveriesFor(store, { acknowledger: failing, retrySchedule: [60_000] });
    const young = await storeBrief();
    await deliveries.deliverNew(
      { record: young, attachment: null, folder },
      { acknowledge: true, waitForRecord: true },
    );
    expect((await readDelivery()).acknowledgment).toMatchObject({ state: "retrying" });

    const old = record(new Date(Date.now() - ACKNOWLEDGMENT_RETRY_WINDOW_MS).toISOString());
    await store.delete(`${folder}/delivery.json`);
    await store.delete(duePath(reference, "acknowledgment"));
    await deliveries.deliverNew(
      { record: old, attachment: null, folder },
      { acknowledge: true, waitForRecord: true },
    );
    expect((await readDelivery()).acknowledgment).toMatchObject({ state: "failed" });
    expect(await store.get(duePath(reference, "acknowledgment"))).toBeNull();
    // Recorded as given up (the visitor's email: no alert to ops).
    await vi.waitFor(async () =>
      expect(await store.get(failedPath(reference, "acknowledgment"))).not.toBeNull(),
    );
  });
});
