import { setTimeout as sleep } from "node:timers/promises";
import { finishInBackground } from "../background";
import {
  type BriefRecord,
  briefRecordSchema,
  type Delivery,
  readDelivery,
  deliveryFile,
  recordInBackground,
  updateDelivery,
} from "../briefs";
import type { AcknowledgmentDelivery, ChannelDelivery } from "../briefs";
import {
  attemptChannel,
  type BriefNotice,
  classifyFailure,
  type Channel,
  type ChannelName,
  describeFailure,
  fanOut,
  forwardedChannels,
  type NoticeAttachment,
} from "../notify";
import type { ObjectStore, StoreCallOptions } from "../store";
import type { GiveUpAlerts } from "./alerts";
import { checkedAttachment } from "./attachment";
import { recordAttempt, type Outcome } from "./log";
import { Fence } from "./fence";
import { AFTER_SEND_MS, leaseFor } from "./lease";
import {
  type Claim,
  claimDue,
  claimNow,
  dueEntry,
  duePath,
  DueLook,
  failedPath,
  markFailed,
} from "./records";
import { ACKNOWLEDGMENT_RETRY_WINDOW_MS, nextAttemptAt } from "./schedule";
import type { AttemptOutcomes, BriefAcknowledger, DueRecord, RunCounts, Target } from "./types";

/** Publishes a scheduled retry to a queue that calls back when it is due (QStash). */
export interface RetryPublisher {
  publish(due: DueRecord): Promise<void>;
}

export interface DeliveriesDeps {
  store: ObjectStore;
  /** The configured channels, in `forwarded`'s order. */
  channels: readonly Channel[];
  acknowledger: BriefAcknowledger | null;
  notifyTimeoutMs: number;
  /** The waits before each retry (`DELIVERY_RETRY_SCHEDULE`); `[]`: none. */
  retrySchedule: readonly number[];
  alerts: GiveUpAlerts;
  /** QStash; `null`: this server makes the retries (the first in `after()`, the rest by the scheduler or cron). */
  publisher: RetryPublisher | null;
  /** The jitter's dice (tests fix it). */
  random?: () => number;
  /**
   * Told after an attempt changed a brief's `delivery.json` (a retry, ops' "Retry now"), not after
   * its first record: the inbox's list index keeps its summary current (lib/ops). Must not throw.
   */
  onDeliveryChanged?: (folder: string, delivery: Delivery) => Promise<void>;
}

/** The first retry waits in the request's `after()` only this long at most; a later one is the scheduler's or cron's. */
const IN_REQUEST_RETRY_MAX_MS = 60_000;

/** Attempts a round of due records makes at once. */
const RUN_CONCURRENCY = 4;

/** A claim that was won. */
type Claimed = Extract<Claim, { claimed: true }>;

/**
 * What one attempt at a due record came to. `lost`: the claim was found gone (the brief erased
 * meanwhile) or too short to finish in, so nothing more was sent or recorded.
 */
export type AttemptResult =
  | { made: true; target: Target; record: ChannelDelivery }
  | { made: false; target: Target; why: "missing" | "not-due" | "leased" | "gone" | "done" | "lost" };

/**
 * Part 4's deliveries: every channel attempt made, logged in `delivery.json`, and retried on the
 * schedule until it is delivered or gives up, whoever makes the attempts (the request, a long-lived
 * server's scheduler, the cron route, QStash's callback, ops' "Retry now"). The store is the one
 * truth: an attempt is made only once a due record says so and has been claimed.
 */
export class Deliveries {
  private readonly random: () => number;
  /** How long each claim lasts: longer than the longest attempt (`leaseFor`). */
  readonly leaseMs: number;
  /** `<reference>.<target>` of the attempts this process is making now. */
  private readonly inFlight = new Set<string>();
  /** The due records as the last look read them, so the next reads only what changed. */
  private readonly look = new DueLook();

  constructor(private readonly deps: DeliveriesDeps) {
    this.random = deps.random ?? Math.random;
    this.leaseMs = leaseFor(deps.notifyTimeoutMs);
  }

  /**
   * A stored brief's first attempts: every channel at once and, when `acknowledge`, the
   * acknowledgment beside them, under `NOTIFY_TIMEOUT_MS`. Then its delivery log, the due records
   * of what is to be retried and the failed records of what gave up, written without holding the
   * answer long (`recordInBackground`); the first retry is published, or waited for in `after()`.
   * Never rejects: `forwarded` names the channels delivered now.
   */
  async deliverNew(
    notice: BriefNotice,
    { acknowledge, waitForRecord = false }: { acknowledge: boolean; waitForRecord?: boolean },
  ): Promise<{ delivery: Delivery; forwarded: ChannelName[] }> {
    const { channels, notifyTimeoutMs, acknowledger } = this.deps;
    const [outcomes, acknowledgment] = await Promise.all([
      fanOut(channels, notice, notifyTimeoutMs),
      acknowledge && acknowledger ? acknowledger.acknowledge(notice.record) : undefined,
    ]);
    const attempted: AttemptOutcomes = acknowledgment ? { ...outcomes, acknowledgment } : outcomes;
    const now = new Date();
    const delivery: Delivery = {};
    for (const [target, outcome] of Object.entries(attempted) as [Target, Outcome][]) {
      const next = this.nextAttempt(target, notice.record, undefined, outcome, now);
      (delivery as Record<Target, AcknowledgmentDelivery>)[target] = recordAttempt(undefined, outcome, next);
    }
    const due: DueRecord[] = (Object.entries(delivery) as [Target, AcknowledgmentDelivery][]).flatMap(
      ([channel, record]) =>
        record.nextAttemptAt
          ? [
              {
                reference: notice.record.reference,
                folder: notice.folder,
                channel,
                dueAt: record.nextAttemptAt,
              },
            ]
          : [],
    );
    let erased = false;
    const write = async (options: StoreCallOptions) => {
      // One durable batch, placed in order: the due records first, so that should the process stop
      // in between, the attempt they name finds no log and makes one (a log saying `retrying` with
      // no due record would never be retried).
      const log = deliveryFile(delivery);
      const entries = [
        ...due.map(dueEntry),
        { path: `${notice.folder}/${log.name}`, body: log.body, contentType: log.contentType },
      ];
      await this.deps.store.putAll(entries, options);
      // First attempts hold no claim for an erase to take: an erase that listed the folder before
      // this batch landed is seen by the brief being gone, and what the batch wrote is taken back.
      erased = await this.erased(notice.folder, options);
      if (erased) await Promise.all(entries.map((entry) => this.deps.store.delete(entry.path, options)));
    };
    const then = this.followUpNeeded(delivery, due)
      ? async () => {
          if (!erased) await this.afterFirst(notice, delivery, due);
        }
      : undefined;
    if (waitForRecord) {
      // Ops' "Not spam": the answer says what was recorded, so it waits for the record.
      await write({});
      if (then) finishInBackground(then(), `following up the delivery of ${notice.folder}`);
    } else {
      await recordInBackground(notice.folder, write, then);
    }
    return { delivery, forwarded: forwardedChannels(outcomes) };
  }

  /** Whether `afterFirst` has anything to do: a first attempt that gave up (not held back), or a retry. */
  private followUpNeeded(delivery: Delivery, due: readonly DueRecord[]): boolean {
    return (
      due.length > 0 ||
      Object.values(delivery).some(
        (record: AcknowledgmentDelivery) => record.state === "failed" && !record.suppressed,
      )
    );
  }

  /** After the first attempts are recorded: ops told of what gave up, and who makes the first retry. */
  private async afterFirst(
    notice: BriefNotice,
    delivery: Delivery,
    due: readonly DueRecord[],
  ): Promise<void> {
    const entries = Object.entries(delivery) as [Target, AcknowledgmentDelivery][];
    await Promise.all([
      ...entries
        .filter(([, record]) => record.state === "failed" && !record.suppressed)
        .map(([channel, record]) => this.gaveUp(notice.folder, notice.record.reference, channel, record)),
      ...due.map((record) => this.scheduled(record, true)),
    ]);
  }

  /**
   * Makes the attempt `reference`'s `target` due record names, if it is due and this call claims
   * it (QStash's callback, the first retry in `after()`). `force`: now, due or not (ops).
   */
  async attemptIfDue(
    reference: string,
    target: Target,
    { now = new Date(), force = false, ...options }: StoreCallOptions & { now?: Date; force?: boolean } = {},
  ): Promise<AttemptResult> {
    const claim = await claimDue(this.deps.store, reference, target, now, {
      ...options,
      force,
      leaseMs: this.leaseMs,
    });
    if (!claim.claimed) return { made: false, target, why: claim.why };
    return this.attempt(claim, { manual: force });
  }

  /**
   * Every due attempt this call can claim, a few at a time, until `signal` aborts: then it answers
   * at once, and what is left is the next round's. An attempt still under way then is not waited
   * for: it goes on under its claim and records its own outcome (in `after()` within a request).
   * Counts what each attempt finished by then came to.
   *
   * The due records come from one listing; only those new or changed since this instance's last
   * look are read (a long-lived server looks every 10 s), plus the claims of those that are due.
   */
  async runDue({ signal, now = new Date() }: { signal?: AbortSignal; now?: Date } = {}): Promise<RunCounts> {
    const counts: RunCounts = { attempted: 0, delivered: 0, failed: 0, retrying: 0 };
    const options = signal ? { signal } : {};
    const ready = (await this.look.due(this.deps.store, options)).filter(
      (record) =>
        !this.inFlight.has(`${record.reference}.${record.channel}`) &&
        Date.parse(record.dueAt) <= now.getTime() &&
        (record.leaseUntil === undefined || Date.parse(record.leaseUntil) <= now.getTime()),
    );
    let next = 0;
    const worker = async () => {
      while (next < ready.length && !signal?.aborted) {
        const record = ready[next++]!;
        const attempt = this.attemptIfDue(record.reference, record.channel, { ...options, now });
        const result = await settledUnlessAborted(attempt, signal);
        if (result === "aborted") {
          finishInBackground(attempt, `the ${record.channel} attempt at ${record.reference}`);
          return;
        }
        if (result.ok) {
          if (!result.value.made) continue;
          counts.attempted++;
          counts[result.value.record.state === "delivered" ? "delivered" : result.value.record.state]++;
        } else {
          console.error(`[delivery] ${record.reference} ${record.channel}: attempt not made`, result.error);
        }
      }
    };
    await Promise.all(Array.from({ length: RUN_CONCURRENCY }, worker));
    return counts;
  }

  /**
   * Ops' "Retry now": an attempt at each of `targets` at once, claimed like any other (a channel
   * whose attempt is under way elsewhere answers `leased`). A failed channel that fails again stays
   * failed; a retrying one goes on with its schedule.
   */
  async retryNow(
    brief: { folder: string; record: BriefRecord },
    targets: readonly Target[],
    now = new Date(),
    { again = false }: { again?: boolean } = {},
  ): Promise<AttemptResult[]> {
    const { store } = this.deps;
    return Promise.all(
      targets.map(async (target): Promise<AttemptResult> => {
        const claim = await claimNow(
          store,
          { reference: brief.record.reference, folder: brief.folder, channel: target },
          now,
          { leaseMs: this.leaseMs },
        );
        if (!claim.claimed) return { made: false, target, why: claim.why };
        return this.attempt(claim, { manual: true, again });
      }),
    );
  }

  /**
   * One claimed attempt: made, logged, and what follows it recorded (the next due record, or the
   * end), each step under the claim (`Fence`): the send only while the claim holds and the lease
   * leaves time for it and its record, every write after it only while the claim holds, and the
   * last one conditional on it. A claim found gone (the brief erased meanwhile) ends the attempt:
   * nothing more is sent, and what it wrote after the erase is taken back.
   */
  private async attempt(
    claim: Claimed,
    { manual, again = false }: { manual: boolean; again?: boolean },
  ): Promise<AttemptResult> {
    const { reference, channel: target } = claim.record;
    const key = `${reference}.${target}`;
    const fence = new Fence(this.deps.store, duePath(reference, target), claim.version, this.leaseMs);
    this.inFlight.add(key);
    try {
      return await this.attemptUnder(fence, claim.record, { manual, again });
    } finally {
      this.inFlight.delete(key);
      fence.end();
    }
  }

  private async attemptUnder(
    fence: Fence,
    due: DueRecord,
    { manual, again }: { manual: boolean; again: boolean },
  ): Promise<AttemptResult> {
    const { store, notifyTimeoutMs } = this.deps;
    const { reference, folder, channel: target } = due;
    const lost: AttemptResult = { made: false, target, why: "lost" };
    const record = await this.readBrief(folder, fence.options);
    if (record === null) {
      // Erased (or never committed): nothing more is sent.
      await fence.release();
      return { made: false, target, why: "gone" };
    }
    const previous = (await readDelivery(store, folder, fence.options))[target];
    if ((previous?.state === "delivered" && !again) || (previous?.state === "failed" && !manual)) {
      await fence.release();
      return { made: false, target, why: "done" };
    }
    // Too little of the lease left for the send and its record (a store that was slow to answer):
    // the claim runs out and the attempt is the next claimant's, whole.
    if (fence.msLeft() < 2 * notifyTimeoutMs + AFTER_SEND_MS) return lost;
    if (!(await fence.holds())) return lost;
    const outcome = await this.makeAttempt(target, record, folder);
    const now = new Date();
    let next = this.nextAttempt(target, record, previous, outcome, now);
    // Ops retrying a channel that had given up: one more try, not a new schedule.
    if (previous?.state === "failed") next = null;
    // Sent again by ops after it was delivered: logged, but a failure does not undo the delivery.
    let updated = recordAttempt(previous, outcome, next);
    if (previous?.state === "delivered" && !outcome.ok) {
      updated = {
        state: "delivered",
        ok: true,
        at: previous.at,
        attempts: updated.attempts,
        log: updated.log,
      };
    }
    if (!(await fence.holds())) return lost;
    const delivery = await updateDelivery(
      store,
      folder,
      (current) => ({ ...current, [target]: updated }),
      fence.options,
    );
    let kept: boolean;
    let rescheduled: DueRecord | null = null;
    if (previous?.state === "delivered") {
      kept = await fence.release();
    } else if (updated.state === "retrying") {
      rescheduled = { reference, folder, channel: target, dueAt: updated.nextAttemptAt! };
      kept = await fence.reschedule(rescheduled);
    } else if (updated.state === "delivered") {
      await store.delete(failedPath(reference, target), fence.options);
      kept = await fence.release();
    } else {
      // Ops who pressed "Retry now" see the outcome on the page: they are not emailed about it.
      kept = updated.suppressed
        ? true
        : await this.gaveUp(folder, reference, target, updated, { alert: !manual, fence });
      if (kept) kept = await fence.release();
    }
    if (!kept) {
      await this.takeBack(folder, reference, target, fence);
      return lost;
    }
    await this.deps.onDeliveryChanged?.(folder, delivery);
    if (rescheduled) await this.scheduled(rescheduled, false);
    return { made: true, target, record: updated };
  }

  /**
   * The claim was gone when the attempt's last write was made: an erase removed the due record
   * meanwhile. Once the brief itself is gone too, what the attempt wrote after the erase (its log,
   * a failed record) is removed; while it is still there, the erase under way removes them itself.
   */
  private async takeBack(folder: string, reference: string, target: Target, fence: Fence): Promise<void> {
    const { store } = this.deps;
    if (!(await this.erased(folder, fence.options))) return;
    await store.delete(failedPath(reference, target), fence.options);
    await store.delete(`${folder}/delivery.json`, fence.options);
  }

  /** Whether the brief in `folder` is gone: erased, or removed by retention, since it was stored. */
  private async erased(folder: string, options: StoreCallOptions): Promise<boolean> {
    return (await this.deps.store.get(`${folder}/brief.json`, options)) === null;
  }

  private async makeAttempt(target: Target, record: BriefRecord, folder: string): Promise<Outcome> {
    const { channels, acknowledger, notifyTimeoutMs, store } = this.deps;
    const unavailable = (what: string): Outcome => ({
      ok: false,
      at: new Date().toISOString(),
      ms: 0,
      error: `${what} is not configured here`,
      failure: { retryable: false },
    });
    if (target === "acknowledgment") {
      return acknowledger
        ? acknowledger.acknowledge(record)
        : unavailable("the acknowledgment (CONTACT_ACKNOWLEDGE)");
    }
    const channel = channels.find((candidate) => candidate.name === target);
    if (!channel) return unavailable(`the ${target} channel`);
    // Only the email carries the file; the webhook names it by its checksum.
    let attachment: NoticeAttachment | null = null;
    if (record.attachment && target === "email") {
      try {
        attachment = await checkedAttachment(store, folder, record.reference, record.attachment);
      } catch (error) {
        return {
          ok: false,
          at: new Date().toISOString(),
          ms: 0,
          error: describeFailure(error),
          failure: classifyFailure(error),
        };
      }
    }
    return attemptChannel(channel, { record, attachment, folder }, notifyTimeoutMs);
  }

  /** When `target` is tried next after this attempt, or `null`: delivered, suppressed, or given up. */
  private nextAttempt(
    target: Target,
    record: BriefRecord,
    previous: ChannelDelivery | undefined,
    outcome: Outcome,
    now: Date,
  ): Date | null {
    if (outcome.ok || ("suppressed" in outcome && outcome.suppressed)) return null;
    const attempts = (previous?.attempts ?? 0) + 1;
    const next = nextAttemptAt(this.deps.retrySchedule, attempts, outcome.failure, now, this.random);
    if (next === null || target !== "acknowledgment") return next;
    const tooLate = Date.parse(record.receivedAt) + ACKNOWLEDGMENT_RETRY_WINDOW_MS;
    return next.getTime() < tooLate ? next : null;
  }

  /** Someone will make the retry: QStash, told now; else the first waits in `after()`, later ones for the scheduler or cron. */
  private async scheduled(due: DueRecord, first: boolean): Promise<void> {
    const { publisher } = this.deps;
    try {
      if (publisher) return await publisher.publish(due);
    } catch (error) {
      // The due record stays: the scheduler or the cron route makes the attempt instead.
      console.error(
        `[delivery] ${due.reference} ${due.channel}: retry not published (${describeFailure(error)})`,
      );
      return;
    }
    const wait = Date.parse(due.dueAt) - Date.now();
    if (!first || wait > IN_REQUEST_RETRY_MAX_MS) return;
    await sleep(Math.max(0, wait) + 50);
    await this.attemptIfDue(due.reference, due.channel);
  }

  /**
   * Gave up: the failed record, and (only when this call made it) the log line and the alert.
   * Under an attempt's claim (`fence`), the alert is sent only while the claim holds; `false`: it
   * did not (nothing was sent).
   */
  private async gaveUp(
    folder: string,
    reference: string,
    target: Target,
    record: ChannelDelivery,
    { alert = true, fence }: { alert?: boolean; fence?: Fence } = {},
  ): Promise<boolean> {
    const error = record.error ?? "unknown error";
    const first = await markFailed(
      this.deps.store,
      { reference, folder, channel: target, at: record.at, error },
      fence?.options,
    );
    if (!first) return true;
    if (fence && !(await fence.holds())) return false;
    console.warn(`[delivery] ${reference} ${target} gave up: ${error}`);
    if (alert)
      await this.deps.alerts.gaveUp({ reference, channel: target, error, attempts: record.attempts });
    return true;
  }

  private async readBrief(folder: string, options: StoreCallOptions = {}): Promise<BriefRecord | null> {
    const bytes = await this.deps.store.get(`${folder}/brief.json`, options);
    if (bytes === null) return null;
    return briefRecordSchema.parse(JSON.parse(Buffer.from(bytes).toString("utf8"))) as BriefRecord;
  }
}

/**
 * How `work` settled, or `"aborted"` as soon as `signal` aborts first (the work goes on). Never
 * rejects.
 */
async function settledUnlessAborted<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown } | "aborted"> {
  const settled = work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (!signal) return settled;
  if (signal.aborted) return "aborted";
  let onAbort = () => {};
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([settled, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
