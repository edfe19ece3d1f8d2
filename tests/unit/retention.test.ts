import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { subscribe, subscriberPath } from "@/lib/newsletter";
import { applyRetention, readAudit } from "@/lib/ops";
import { startHourlyGc } from "@/lib/ops-web";
import { FilesystemStore } from "@/lib/store/filesystem";
import { storeBrief } from "../support/briefs";

/**
 * Retention's rules on a real filesystem inbox, in-process with a fixed clock: where the cutoff
 * falls, what a dry run and a run cut short do; and the long-lived server's hourly gc timer.
 */

const NOW = new Date("2026-06-15T12:00:00.000Z");
const DAY_MS = 86_400_000;
const before = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

let dir: string;
let store: FilesystemStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "retention-test-"));
  store = new FilesystemStore(dir);
});

afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

describe("applyRetention", () => {
  it("erases what was received more than RETENTION_DAYS ago, to the millisecond, and keeps the rest", async () => {
    const past = await storeBrief(store, { receivedAt: before(30 * DAY_MS + 1) });
    const atCutoff = await storeBrief(store, { receivedAt: before(30 * DAY_MS) });
    const spam = await storeBrief(store, { receivedAt: before(365 * DAY_MS), folder: "spam" });
    const result = await applyRetention(store, { now: NOW, retentionDays: 30 });
    expect(result).toEqual({ briefs: [past.folder], spam: [spam.folder], pendingSubscribers: [] });
    expect(await store.get(`${past.folder}/brief.json`)).toBeNull();
    expect(await store.get(`${atCutoff.folder}/brief.json`)).not.toBeNull();
  });

  it("keeps every brief when RETENTION_DAYS is not set, and finds without erasing on a dry run", async () => {
    const old = await storeBrief(store, { receivedAt: before(3650 * DAY_MS) });
    expect(await applyRetention(store, { now: NOW, retentionDays: null })).toMatchObject({ briefs: [] });
    expect(await applyRetention(store, { now: NOW, retentionDays: 1, dryRun: true })).toMatchObject({
      briefs: [old.folder],
    });
    expect(await store.get(`${old.folder}/brief.json`)).not.toBeNull();
    expect(await readAudit(store)).toEqual([]);
  });

  it("a run whose deadline has passed erases nothing more; the next run does", async () => {
    const old = await storeBrief(store, { receivedAt: before(90 * DAY_MS) });
    const aborted = { signal: AbortSignal.abort() };
    await expect(applyRetention(store, { now: NOW, retentionDays: 30, call: aborted })).rejects.toThrow();
    expect(await store.get(`${old.folder}/brief.json`)).not.toBeNull();
    expect((await applyRetention(store, { now: NOW, retentionDays: 30 })).briefs).toEqual([old.folder]);
  });

  it("removes subscriptions pending for more than 7 days, whatever RETENTION_DAYS says; never a confirmed one", async () => {
    const optIn = { doubleOptIn: true };
    await subscribe(
      store,
      { email: "stale@example.com", topics: [] },
      new Date(before(7 * DAY_MS + 1)),
      undefined,
      optIn,
    );
    await subscribe(
      store,
      { email: "waiting@example.com", topics: [] },
      new Date(before(6 * DAY_MS)),
      undefined,
      optIn,
    );
    await subscribe(store, { email: "old@example.com", topics: [] }, new Date(before(400 * DAY_MS)));
    const result = await applyRetention(store, { now: NOW, retentionDays: null });
    expect(result.pendingSubscribers).toEqual([subscriberPath("stale@example.com")]);
    expect(await store.get(subscriberPath("waiting@example.com"))).not.toBeNull();
    expect(await store.get(subscriberPath("old@example.com"))).not.toBeNull();
  });
});

describe("startHourlyGc", () => {
  it("runs after its first delay, then on its interval, audited as server, and stops on SIGTERM", async () => {
    const old = await storeBrief(store, { receivedAt: new Date(Date.now() - 40 * DAY_MS).toISOString() });
    const listeners = process.listenerCount("SIGTERM");
    const otherListener = () => {};
    process.on("SIGTERM", otherListener); // as `next start` has: stopping must not exit by itself
    try {
      const stop = startHourlyGc(
        { store, config: { retentionDays: 30 } },
        { firstDelayMs: 200, intervalMs: 300 },
      );
      expect(process.listenerCount("SIGTERM")).toBe(listeners + 2);
      expect(await store.get(`${old.folder}/brief.json`)).not.toBeNull();
      await vi.waitFor(async () => expect(await store.get(`${old.folder}/brief.json`)).toBeNull(), {
        timeout: 5_000,
      });
      // A later run erases what has aged since, with an entry of its own.
      const later = await storeBrief(store, { receivedAt: new Date(Date.now() - 31 * DAY_MS).toISOString() });
      await vi.waitFor(async () => expect(await store.get(`${later.folder}/brief.json`)).toBeNull(), {
        timeout: 5_000,
      });
      await vi.waitFor(async () => expect(await readAudit(store)).toHaveLength(2), { timeout: 5_000 });
      const entries = await readAudit(store);
      expect(entries.map((entry) => [entry.actor, entry.action, entry.target])).toEqual([
        ["server", "retention", "1 briefs, 0 spam"],
        ["server", "retention", "1 briefs, 0 spam"],
      ]);
      process.emit("SIGTERM");
      expect(process.listenerCount("SIGTERM")).toBe(listeners + 1);
      const survivor = await storeBrief(store, {
        receivedAt: new Date(Date.now() - 50 * DAY_MS).toISOString(),
      });
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(await store.get(`${survivor.folder}/brief.json`)).not.toBeNull();
      stop();
    } finally {
      process.off("SIGTERM", otherListener);
    }
  });
});
