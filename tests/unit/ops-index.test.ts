import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ObjectStore, StoreCallOptions } from "@/lib/store";
import { FilesystemStore } from "@/lib/store/filesystem";
import { addBriefNote, changeStatus } from "@/lib/ops/actions/brief-state";
import { markNotSpam } from "@/lib/ops/actions/not-spam";
import { catalogPath, markStale, readCatalog, staleMarkPrefix } from "@/lib/ops/catalog";
import { erase, planErase } from "@/lib/ops/erase";
import { indexDeliveryChange } from "@/lib/ops/index-update";
import { findBrief } from "@/lib/ops/find";
import { monthNumber } from "@/lib/ops/reader";
import { reindex } from "@/lib/ops/rebuild";
import { applyRetention } from "@/lib/ops/retention";
import { NO_FILTER, parseFilter } from "@/lib/ops/list-filter";
import { searchBriefs } from "@/lib/ops/search";
import { setStatus } from "@/lib/ops/state";
import { indexPath, readMonthIndex } from "@/lib/ops/month-index";
import { storeBrief } from "../support/briefs";
import { deliveriesFor } from "../support/deliveries";

/**
 * The list's index kept at write time (issue 33): a view reads the catalog, the newest month and
 * the days since the watermark, never the whole history; writes keep the months current; a lost,
 * damaged or old index is rebuilt, and the page says how much it covers meanwhile.
 */

let dir: string;
let store: FilesystemStore;
const now = new Date("2026-03-20T12:00:00.000Z");
const view = (filter = NO_FILTER, on: ObjectStore = store, options = {}) =>
  searchBriefs(on, "briefs", filter, { now, background: false, ...options });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ops-index-"));
  store = new FilesystemStore(dir);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `store`, with every listing's prefix and every read path recorded. */
function watched(): { store: ObjectStore; listed: string[]; read: string[] } {
  const listed: string[] = [];
  const read: string[] = [];
  const wrapped = Object.create(store, {
    list: {
      value: (prefix: string, options?: StoreCallOptions) => {
        listed.push(prefix);
        return store.list(prefix, options);
      },
    },
    get: {
      value: (path: string, options?: StoreCallOptions) => {
        read.push(path);
        return store.get(path, options);
      },
    },
  }) as ObjectStore;
  return { store: wrapped, listed, read };
}

async function history() {
  const january = await storeBrief(store, { receivedAt: "2026-01-05T10:00:00.000Z", delivery: {} });
  const february = await storeBrief(store, { receivedAt: "2026-02-05T10:00:00.000Z", delivery: {} });
  const march = await storeBrief(store, { receivedAt: "2026-03-05T10:00:00.000Z", delivery: {} });
  return { january, february, march };
}

const references = (page: { briefs: { reference: string }[] }) => page.briefs.map((brief) => brief.reference);

describe("the list's index", () => {
  it("an arrival appears on the next view, found by listing only the days since the watermark", async () => {
    await history();
    expect((await view()).total).toBe(3);
    const arrival = await storeBrief(store, { receivedAt: "2026-03-20T11:59:00.000Z", delivery: {} });
    const watching = watched();
    const page = await view(NO_FILTER, watching.store);
    expect(page.total).toBe(4);
    expect(page.counts.new).toBe(4);
    expect(references(page)[0]).toBe(arrival.record.reference);
    const briefListings = watching.listed.filter((prefix) => prefix.startsWith("briefs/"));
    expect(briefListings.sort()).toEqual(["briefs/2026/03/20/", "briefs/2026/03/21/"]);
    // Found by a search too, and by the status filter.
    expect((await view(parseFilter({ q: arrival.record.reference }))).total).toBe(1);
  });

  it("a status change updates the counts without listing or reading the history again", async () => {
    const { january } = await history();
    await view();
    const brief = await findBrief(store, january.record.reference, now);
    await changeStatus({ store }, brief!, "handled", { actor: "ops", now });
    const watching = watched();
    const page = await view(NO_FILTER, watching.store);
    expect(page.counts).toEqual({ new: 2, handled: 1, archived: 0 });
    expect(watching.listed.some((prefix) => /^briefs\/2026\/0[12]/.test(prefix))).toBe(false);
    expect(watching.read.filter((path) => path.startsWith("briefs/"))).toEqual([]);
    // The catalog and month indexes only (three briefs: the page walks back to January for them).
    expect(watching.read.every((path) => path.startsWith("index/briefs/"))).toBe(true);
    const handled = await view(parseFilter({ status: "handled" }));
    expect(references(handled)).toEqual([january.record.reference]);
  });

  it("concurrent status changes and notes in one month lose nothing", async () => {
    const briefs = await Promise.all(
      [1, 2, 3, 4].map((day) =>
        storeBrief(store, { receivedAt: `2026-02-0${day}T10:00:00.000Z`, delivery: {} }),
      ),
    );
    await view();
    const stored = await Promise.all(briefs.map((brief) => findBrief(store, brief.record.reference, now)));
    await Promise.all([
      changeStatus({ store }, stored[0]!, "handled", { actor: "ada", now }),
      changeStatus({ store }, stored[1]!, "archived", { actor: "bob", now }),
      changeStatus({ store }, stored[2]!, "handled", { actor: "cy", now }),
      addBriefNote({ store }, stored[3]!, "Called back.", { actor: "dee", now }),
    ]);
    const page = await view();
    expect(page.counts).toEqual({ new: 1, handled: 2, archived: 1 });
    const index = await readMonthIndex(store, "briefs", monthNumber(2026, 2));
    const status = (reference: string) =>
      index?.entries.find((entry) => entry.reference === reference)?.status;
    expect(briefs.map((brief) => status(brief.record.reference))).toEqual([
      "handled",
      "archived",
      "handled",
      "new",
    ]);
  });

  it("a write the index cannot take never fails the action: the month is marked stale and checked again", async () => {
    const { january } = await history();
    await view();
    const failing = Object.create(store, {
      putIfVersion: {
        value: (
          path: string,
          ...rest: Parameters<ObjectStore["putIfVersion"]> extends [string, ...infer R] ? R : never
        ) =>
          path.startsWith("index/")
            ? Promise.reject(new Error("index unwritable"))
            : store.putIfVersion(path, ...rest),
      },
    }) as ObjectStore;
    const brief = await findBrief(store, january.record.reference, now);
    const { state } = await changeStatus({ store: failing }, brief!, "archived", { actor: "ops", now });
    expect(state.status).toBe("archived");
    const marks: string[] = [];
    for await (const info of store.list(staleMarkPrefix("briefs"))) marks.push(info.path);
    expect(marks).toEqual(["index/briefs/stale/2026-01"]);
    expect((await view()).counts).toEqual({ new: 2, handled: 0, archived: 1 });
    for await (const info of store.list(staleMarkPrefix("briefs"))) expect(info.path).toBeUndefined();
  });

  it("a hand edit is not seen by a settled month until the month is marked stale or reindexed", async () => {
    const { february } = await history();
    await view();
    await setStatus(store, february.folder, "archived", "by hand", now);
    expect((await view()).counts.archived).toBe(0);
    await markStale(store, "briefs", monthNumber(2026, 2), "a test");
    expect((await view()).counts.archived).toBe(1);
    await setStatus(store, february.folder, "handled", "by hand", now);
    expect(await reindex(store, "briefs", now)).toBeGreaterThan(0);
    expect((await view()).counts).toEqual({ new: 2, handled: 1, archived: 0 });
  });

  it("erasure and retention find a brief written around the service into a settled month, which the list does not show", async () => {
    await history();
    await view();
    // Stored straight into January, which the index holds as settled: as a hand copy or a
    // process stopped before its index update would leave it.
    const aside = await storeBrief(store, {
      receivedAt: "2026-01-09T10:00:00.000Z",
      fields: { email: "aside@example.com" },
    });
    expect((await view(parseFilter({ q: "aside@" }))).total).toBe(0);
    expect((await planErase(store, "aside@example.com", { now })).briefs).toEqual([aside.folder]);
    const expired = await applyRetention(store, { now, retentionDays: 30, dryRun: true });
    expect(expired.briefs).toContain(aside.folder);
    // The check repaired January's index on the way.
    expect((await view(parseFilter({ q: "aside@" }))).total).toBe(1);
  });

  it("a lost index is rebuilt newest month first, and the page says it is partial while it is", async () => {
    await history();
    await view();
    await rm(join(dir, "index"), { recursive: true });
    const first = await view(NO_FILTER, store, { budgetMs: 0 });
    expect(first.coverage).toEqual({ complete: false, from: null, monthsLeft: 12 });
    expect(first.total).toBe(0);
    // Each view goes on from where the last stopped: one month step each with a tiny budget.
    let page = first;
    for (let views = 0; views < 20 && !page.coverage.complete; views++) {
      page = await view(NO_FILTER, store, { budgetMs: 1 });
      if (!page.coverage.complete && page.coverage.from !== null) {
        expect(page.coverage.from >= "2026-01-01").toBe(true);
      }
    }
    expect(page.coverage.complete).toBe(true);
    expect(page.total).toBe(3);
  });

  it("a damaged month index, or a catalog of another version, is rebuilt from the briefs", async () => {
    const { march, january } = await history();
    await view();
    await writeFile(join(dir, indexPath("briefs", monthNumber(2026, 3))), "not json");
    expect(references(await view())[0]).toBe(march.record.reference);
    await writeFile(
      join(dir, indexPath("briefs", monthNumber(2026, 1))),
      JSON.stringify({ version: 2, entries: [] }),
    );
    expect((await view(parseFilter({ q: january.record.reference }))).total).toBe(1);
    await writeFile(join(dir, catalogPath("briefs")), JSON.stringify({ version: 0, months: {} }));
    const page = await view();
    expect(page.total).toBe(3);
    expect(page.coverage.complete).toBe(true);
    expect((await readCatalog(store, "briefs"))?.months["2026/01"]?.counts.new).toBe(1);
  });

  it("a delivery change after the first record reaches the summary", async () => {
    const { february } = await history();
    await view();
    const record = { ok: false, at: now.toISOString(), state: "failed" as const, attempts: 3, log: [] };
    await indexDeliveryChange(store, february.folder, { email: record });
    const index = await readMonthIndex(store, "briefs", monthNumber(2026, 2));
    expect(index?.entries[0]?.delivery).toBe("email ✗");
  });

  it("not spam moves the summary from the spam index to the briefs index, even into an old day", async () => {
    await history();
    const caught = await storeBrief(store, { receivedAt: "2026-01-09T10:00:00.000Z", folder: "spam" });
    await view();
    expect((await searchBriefs(store, "spam", NO_FILTER, { now, background: false })).total).toBe(1);
    const spam = await findBrief(store, caught.record.reference, now);
    const { deliveries } = deliveriesFor(store);
    await markNotSpam(
      { store, deliveries, channels: [], acknowledger: null, config: { notifyTimeoutMs: 5_000 } },
      spam!,
      { actor: "ops", now },
    );
    expect((await searchBriefs(store, "spam", NO_FILTER, { now, background: false })).total).toBe(0);
    const page = await view();
    expect(page.total).toBe(4);
    expect(references(page)).toContain(caught.record.reference);
  });

  it("erasing leaves no summary in any index or catalog, indexed or just arrived", async () => {
    await history();
    await storeBrief(store, {
      receivedAt: "2026-02-07T10:00:00.000Z",
      fields: { email: "gone@example.com" },
    });
    await view();
    await storeBrief(store, {
      receivedAt: "2026-03-20T11:00:00.000Z",
      fields: { email: "Gone@Example.com" },
    });
    const plan = await planErase(store, "gone@example.com", { now });
    expect(plan.briefs).toHaveLength(2);
    await erase(store, plan);
    for await (const info of store.list("index/")) {
      const text = Buffer.from((await store.get(info.path)) ?? []).toString("utf8");
      expect(text.toLowerCase()).not.toContain("gone@example.com");
      // Not even its reference: the tombstones that keep it out name it by a hash.
      for (const folder of plan.briefs) expect(text).not.toContain(folder.split("/").at(-1));
    }
    expect((await view(parseFilter({ q: "gone@" }))).total).toBe(0);
    expect((await view()).total).toBe(3);
  });
});
