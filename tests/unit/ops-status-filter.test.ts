import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ObjectStore, StoreCallOptions } from "@/lib/store";
import { FilesystemStore } from "@/lib/store/filesystem";
import { changeStatus } from "@/lib/ops/actions/brief-state";
import { findBrief } from "@/lib/ops/find";
import { type BriefFilter, type BriefPage, parseFilter } from "@/lib/ops/list-filter";
import { searchBriefs } from "@/lib/ops/search";
import { type BriefStatus, setStatus } from "@/lib/ops/state";
import { storeBrief, storeUndelivered } from "../support/briefs";
import { watchMonthReads } from "../support/month-reads";

/**
 * The status filter alone (issue 33): its total and counts come from the catalog, its page from
 * the month indexes read newest first only until the page is filled, as the unfiltered list. What
 * it shows must be what reading every month gives: a `from` before the history takes that full
 * read and passes every brief, so each page is compared with it.
 */

let dir: string;
let store: FilesystemStore;
const now = new Date("2026-03-20T12:00:00.000Z");
const PAGE = 4;
/** Months of the generated history, oldest first; `archived` only in the two oldest. */
const MONTHS = ["2025-10", "2025-11", "2025-12", "2026-01", "2026-02", "2026-03"];
const STATUSES: BriefStatus[] = ["new", "handled", "archived"];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ops-status-"));
  store = new FilesystemStore(dir);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Options = { page?: number; budgetMs?: number; on?: ObjectStore };

const view = (filter: BriefFilter, { page = 1, budgetMs, on = store }: Options = {}) =>
  searchBriefs(on, "briefs", filter, {
    now,
    page,
    pageSize: PAGE,
    background: false,
    ...(budgetMs === undefined ? {} : { budgetMs }),
  });

/** What the page shows: rows in order and every figure. */
function shown(page: BriefPage) {
  const { briefs, pending, ...figures } = page;
  return {
    ...figures,
    rows: briefs.map((brief) => `${brief.receivedAt} ${brief.status} ${brief.reference}`),
    pending: { retrying: [...pending.retrying].sort(), failed: [...pending.failed].sort() },
  };
}

/** The status filter's page, checked against the full read of every month (the same filter, with a `from`). */
async function expectAsFullRead(status: BriefStatus, options: Options = {}): Promise<BriefPage> {
  const bounded = await view(parseFilter({ status }), options);
  const full = await view(parseFilter({ status, from: "2000-01-01" }), options);
  expect(shown(bounded)).toEqual(shown(full));
  return bounded;
}

/**
 * Seven briefs a month over six months, statuses mixed (`archived` only before December), the
 * times within a day varied so that the order is by time, not by storing; a brief retrying in
 * March (handled), one failed in December (new) and one failed in October (archived).
 */
async function history(): Promise<void> {
  for (const [m, month] of MONTHS.entries()) {
    for (let i = 0; i < 7; i++) {
      const day = String(1 + ((i * 5) % 28)).padStart(2, "0");
      const receivedAt = `${month}-${day}T${String((i * 7) % 24).padStart(2, "0")}:00:00.000Z`;
      const status: BriefStatus = m < 2 && i % 3 === 0 ? "archived" : i % 2 === 0 ? "handled" : "new";
      const pendingAs =
        month === "2026-03" && i === 2
          ? "retrying"
          : (month === "2025-12" && i === 1) || (month === "2025-10" && i === 3)
            ? "failed"
            : null;
      const stored = pendingAs
        ? await storeUndelivered(store, pendingAs, { receivedAt, dueAt: "2026-04-01T00:00:00.000Z" })
        : await storeBrief(store, { receivedAt, delivery: {} });
      if (status !== "new") await setStatus(store, stored.folder, status, "test", now);
    }
  }
}

const watched = () => watchMonthReads(store);

describe("the status filter alone", () => {
  it("shows every page as the full read does, for each status, while reading only the months it needs", async () => {
    await history();
    await view(parseFilter({}));
    for (const status of STATUSES) {
      const first = await expectAsFullRead(status);
      expect(first.total).toBe(first.counts[status]);
      expect(first.counts).toEqual({ new: 16, handled: 20, archived: 6 });
      for (let page = 2; page <= first.pages + 1; page++) await expectAsFullRead(status, { page });
    }
    // The delivery counts are of the briefs of that status.
    expect((await view(parseFilter({ status: "handled" }))).deliveryCounts).toEqual({
      retrying: 1,
      failed: 0,
    });
    expect((await view(parseFilter({ status: "new" }))).deliveryCounts).toEqual({ retrying: 0, failed: 1 });
    expect((await view(parseFilter({ status: "archived" }))).deliveryCounts).toEqual({
      retrying: 0,
      failed: 1,
    });
  });

  it("reads the newest months only until the page is filled, and skips months without the status", async () => {
    // Without pending deliveries, nothing but the page is looked for.
    for (const [m, month] of MONTHS.entries()) {
      for (let i = 0; i < 5; i++) {
        const stored = await storeBrief(store, {
          receivedAt: `${month}-0${i + 1}T10:00:00.000Z`,
          delivery: {},
        });
        if (m < 2 && i === 0) await setStatus(store, stored.folder, "archived", "test", now);
      }
    }
    await view(parseFilter({}));
    const first = watched();
    expect((await view(parseFilter({ status: "new" }), { on: first.store })).briefs).toHaveLength(PAGE);
    expect(first.months).toEqual(["2026/03"]);
    // Page 4 (briefs 13 to 16): the months holding them, January and December. March is the
    // view's own read (arrivals are looked for in the days since the watermark), as on every page.
    const later = watched();
    const third = await view(parseFilter({ status: "new" }), { on: later.store, page: 4 });
    expect(third.briefs.map((brief) => brief.receivedAt.slice(0, 7))).toEqual([
      "2026-01",
      "2026-01",
      "2026-01",
      "2025-12",
    ]);
    expect(later.months).toEqual(["2026/03", "2026/01", "2025/12"]);
    // A status absent from recent months: only the two months that hold it are read.
    const old = watched();
    expect((await view(parseFilter({ status: "archived" }), { on: old.store })).total).toBe(2);
    expect(old.months).toEqual(["2026/03", "2025/11", "2025/10"]);
    await expectAsFullRead("archived");
    await expectAsFullRead("new", { page: 4 });
  });

  it("finds the months of pending briefs from their records, and reads them all when a record cannot say", async () => {
    await history();
    await view(parseFilter({}));
    // Page 1 of handled: March, then only the months of the two failed briefs (December, October).
    const watching = watched();
    const handled = await view(parseFilter({ status: "handled" }), { on: watching.store });
    expect(watching.months[0]).toBe("2026/03");
    expect(watching.months.slice(1).sort()).toEqual(["2025/10", "2025/12"]);
    expect(handled.deliveryCounts).toEqual({ retrying: 1, failed: 0 });
    // A failed record that names no folder: every month holding that status is read instead.
    let damaged = "";
    for await (const info of store.list("deliveries/failed/")) damaged = info.path;
    await store.put(damaged, "{}\n", "application/json");
    const fallback = watched();
    await expectAsFullRead("new");
    await view(parseFilter({ status: "new" }), { on: fallback.store });
    expect(new Set(fallback.months).size).toBe(MONTHS.length);
  });

  it("reads every month holding the status when a record names no brief's folder", async () => {
    await history();
    await view(parseFilter({}));
    let odd = "";
    for await (const info of store.list("deliveries/failed/")) odd = info.path;
    const record = JSON.parse(Buffer.from((await store.get(odd))!).toString("utf8")) as { folder: string };
    await store.put(odd, `${JSON.stringify({ ...record, folder: "briefs/2025" })}\n`, "application/json");
    const fallback = watched();
    await expectAsFullRead("new");
    await view(parseFilter({ status: "new" }), { on: fallback.store });
    expect(new Set(fallback.months).size).toBe(MONTHS.length);
  });

  it("matches the full read at every step while a lost index is rebuilt, with the same notice", async () => {
    await history();
    await rm(join(dir, "index"), { recursive: true, force: true });
    let complete = false;
    let partial = 0;
    for (let step = 0; step < 30 && !complete; step++) {
      // One step of the rebuild, then both reads with none (budget 0), so they see one state.
      await view(parseFilter({}), { budgetMs: step === 0 ? 0 : 1 });
      for (const status of STATUSES) {
        const page = await expectAsFullRead(status, { budgetMs: 0 });
        await expectAsFullRead(status, { budgetMs: 0, page: 2 });
        complete = page.coverage.complete;
        if (!complete && page.counts.new + page.counts.handled > 0) partial++;
      }
    }
    expect(complete).toBe(true);
    // Steps of a partial index with briefs in it were compared, not only the empty and the whole one.
    expect(partial).toBeGreaterThan(0);
    expect((await expectAsFullRead("archived")).total).toBe(6);
  });

  it("shows a status change just made, in an old month and in the newest", async () => {
    await history();
    await view(parseFilter({}));
    const january = (await view(parseFilter({ status: "new", from: "2026-01-01", to: "2026-01-31" })))
      .briefs[0]!;
    const march = (await view(parseFilter({ status: "handled" }))).briefs[0]!;
    for (const [summary, status] of [
      [january, "handled"],
      [march, "archived"],
    ] as const) {
      const brief = await findBrief(store, summary.reference, now);
      await changeStatus({ store }, brief!, status, { actor: "ops", now });
    }
    const archived = await expectAsFullRead("archived");
    expect(archived.total).toBe(7);
    expect(archived.briefs[0]?.reference).toBe(march.reference);
    for (const status of STATUSES) {
      const first = await expectAsFullRead(status);
      for (let page = 2; page <= first.pages; page++) await expectAsFullRead(status, { page });
    }
    const handled = await view(parseFilter({ status: "handled" }), { page: 1 });
    expect(handled.counts).toEqual({ new: 15, handled: 20, archived: 7 });
    const pages = Array.from({ length: handled.pages }, (_, index) => index + 1);
    const all = (
      await Promise.all(pages.map((page) => view(parseFilter({ status: "handled" }), { page })))
    ).flatMap((page) => page.briefs.map((brief) => brief.reference));
    expect(all).toContain(january.reference);
    expect(all).not.toContain(march.reference);
  });
});

describe("the whole list (a brief's page asks for it)", () => {
  it("reads the months holding it several at once, and shows them in order", async () => {
    await history();
    await view(parseFilter({}));
    let reading = 0;
    let most = 0;
    const months: string[] = [];
    const slow = Object.create(store, {
      get: {
        value: async (path: string, options?: StoreCallOptions) => {
          const match = /^index\/briefs\/(\d{4}\/\d{2})\.json$/.exec(path);
          if (!match) return store.get(path, options);
          months.push(match[1]!);
          most = Math.max(most, ++reading);
          await new Promise((resolve) => setTimeout(resolve, 20));
          reading--;
          return store.get(path, options);
        },
      },
    }) as ObjectStore;
    for (const status of [null, "handled"] as const) {
      months.length = 0;
      most = 0;
      const filter = parseFilter(status === null ? {} : { status });
      const whole = await searchBriefs(slow, "briefs", filter, {
        now,
        pageSize: Number.MAX_SAFE_INTEGER,
        background: false,
      });
      expect(most).toBeGreaterThan(1);
      // Each month once (March also for the view's own look at the days since the watermark).
      expect(months.filter((month) => month !== "2026/03").sort()).toEqual(
        MONTHS.slice(0, -1).map((month) => month.replace("-", "/")),
      );
      const times = whole.briefs.map((brief) => brief.receivedAt);
      expect(times).toEqual([...times].sort().reverse());
      expect(whole.briefs).toHaveLength(status === null ? 42 : 20);
    }
  });
});
