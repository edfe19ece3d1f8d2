import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Folder } from "@/lib/briefs";
import type { ObjectStore } from "@/lib/store";
import { FilesystemStore } from "@/lib/store/filesystem";
import { type ListAround, listAroundBrief, type OpenBrief } from "@/lib/ops/list-around";
import { type BriefFilter, PAGE_SIZE, parseFilter } from "@/lib/ops/list-filter";
import { searchBriefs } from "@/lib/ops/search";
import { type BriefStatus, setStatus } from "@/lib/ops/state";
import { storeBrief, storeUndelivered } from "../support/briefs";
import { watchMonthReads } from "../support/month-reads";

/**
 * A brief's page (issue 33): with no filter or a status alone, the list beside it and its
 * neighbours come from the brief's place (the catalog's counts of the newer months, its place in
 * its month's index) and a read of the page and the neighbours only. What it shows must be what
 * the whole list read and searched gives (the page's way before), checked brief by brief.
 */

let dir: string;
let store: FilesystemStore;
const now = new Date("2026-03-20T12:00:00.000Z");
/** Briefs in March, the newest month: more than a page of each status there. */
const MARCH = 160;
/** Briefs a month, oldest month first. */
const MONTHS: [string, number][] = [
  ["2025-10", 15],
  ["2025-11", 15],
  ["2025-12", 15],
  ["2026-01", 15],
  ["2026-02", 15],
  ["2026-03", MARCH],
];
const FILTERS: (BriefStatus | null)[] = [null, "new", "handled", "archived"];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ops-around-"));
  store = new FilesystemStore(dir);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * The months above, statuses mixed (`archived` only before March), times within a month varied
 * so that the order is by time, not by storing; one brief retrying in March.
 */
async function history(): Promise<OpenBrief[]> {
  const stored: OpenBrief[] = [];
  for (const [month, count] of MONTHS) {
    for (let i = 0; i < count; i++) {
      const day = String(1 + ((i * 7) % 19)).padStart(2, "0");
      const receivedAt = `${month}-${day}T${String((i * 5) % 24).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}:00.000Z`;
      const status: BriefStatus =
        month !== "2026-03" && i % 4 === 0 ? "archived" : i % 3 === 0 ? "handled" : "new";
      const brief =
        month === "2026-03" && i === 7
          ? await storeUndelivered(store, "retrying", { receivedAt, dueAt: "2026-04-01T00:00:00.000Z" })
          : await storeBrief(store, { receivedAt, delivery: {} });
      if (status !== "new") await setStatus(store, brief.folder, status, "test", now);
      stored.push({ kind: "briefs", ...brief });
    }
  }
  return stored;
}

const around = (
  brief: OpenBrief,
  filter: BriefFilter,
  askedPage: number | null = null,
  on: ObjectStore = store,
) => listAroundBrief(on, brief, filter, askedPage, { now, background: false });

/** What the page shows of the list: the rows, the page, the neighbours with their pages. */
function shown({ briefs, page, pending, previous, next }: ListAround) {
  const near = (brief: ListAround["previous"]) =>
    brief && { reference: brief.brief.reference, page: brief.page };
  return {
    rows: briefs.map((brief) => brief.reference),
    page,
    previous: near(previous),
    next: near(next),
    retrying: [...pending.retrying].sort(),
  };
}

/** The whole list of `filter`, read as the page did before (every month holding it). */
async function wholeList(kind: Folder, filter: BriefFilter) {
  const { briefs, pending } = await searchBriefs(store, kind, filter, {
    now,
    pageSize: Number.MAX_SAFE_INTEGER,
    background: false,
  });
  return { all: briefs.map((brief) => brief.reference), retrying: [...pending.retrying].sort() };
}

/** What the page showed before, from the whole list: the page's old `listAround`. */
function fromWholeList(
  { all, retrying }: Awaited<ReturnType<typeof wholeList>>,
  reference: string,
  askedPage: number | null,
) {
  const at = all.indexOf(reference);
  const pages = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
  const page = Math.min(Math.max(1, askedPage ?? (at >= 0 ? Math.floor(at / PAGE_SIZE) + 1 : 1)), pages);
  const near = (index: number) => {
    const found = at >= 0 ? all[index] : undefined;
    return found ? { reference: found, page: Math.floor(index / PAGE_SIZE) + 1 } : null;
  };
  return {
    rows: all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    page,
    previous: near(at - 1),
    next: near(at + 1),
    retrying,
  };
}

const statusFilter = (status: BriefStatus | null) => parseFilter(status === null ? {} : { status });

const watched = () => watchMonthReads(store);

// Each test stores a history of briefs first (durable saves, fsyncs and all): on a loaded machine
// that alone can pass Vitest's 5 s default.
describe("the list beside a brief, from the catalog", { timeout: 30_000 }, () => {
  it("shows for every brief and every status filter what the whole list shows", async () => {
    const briefs = await history();
    await searchBriefs(store, "briefs", parseFilter({}), { now, background: false });
    const seen = { first: 0, last: 0, pageBoundary: 0, monthBoundary: 0, otherStatus: 0 };
    for (const status of FILTERS) {
      const filter = statusFilter(status);
      const whole = await wholeList("briefs", filter);
      expect(whole.all.length).toBeGreaterThan(0);
      for (const brief of briefs) {
        const expected = fromWholeList(whole, brief.record.reference, null);
        expect(shown(await around(brief, filter))).toEqual(expected);
        // Which cases this covered: the two ends, a page's edge, a month's edge, another status.
        const at = whole.all.indexOf(brief.record.reference);
        const month = (reference: string | undefined) =>
          briefs.find((other) => other.record.reference === reference)?.folder.slice(0, 14);
        if (at < 0) seen.otherStatus++;
        if (at === 0) seen.first++;
        if (at >= 0 && at === whole.all.length - 1) seen.last++;
        if (at >= 0 && (at + 1) % PAGE_SIZE === 0 && at + 1 < whole.all.length) seen.pageBoundary++;
        if (at > 0 && month(whole.all[at - 1]) !== brief.folder.slice(0, 14)) seen.monthBoundary++;
      }
    }
    expect(seen.first).toBe(FILTERS.length);
    expect(seen.last).toBe(FILTERS.length);
    expect(seen.pageBoundary).toBeGreaterThanOrEqual(2);
    expect(seen.monthBoundary).toBeGreaterThanOrEqual(10);
    expect(seen.otherStatus).toBeGreaterThan(100);
    // Every brief under four filters: some 900 pages, a few ms each.
  }, 60_000);

  it("shows the asked page, clamped to the list, with the brief's neighbours on their own pages", async () => {
    const briefs = await history();
    await searchBriefs(store, "briefs", parseFilter({}), { now, background: false });
    for (const status of FILTERS) {
      const filter = statusFilter(status);
      const whole = await wholeList("briefs", filter);
      // The first, one on each side of the first page's edge, one in an old month, the last.
      const positions = [0, PAGE_SIZE - 1, PAGE_SIZE, whole.all.length - 5, whole.all.length - 1];
      const chosen = positions
        .filter((position) => position >= 0 && position < whole.all.length)
        .map((position) => briefs.find((brief) => brief.record.reference === whole.all[position])!);
      // And one of another status, when there is one.
      const other = briefs.find((brief) => !whole.all.includes(brief.record.reference));
      for (const brief of other ? [...chosen, other] : chosen) {
        for (const askedPage of [1, 2, 3, 99]) {
          const expected = fromWholeList(whole, brief.record.reference, askedPage);
          expect(shown(await around(brief, filter, askedPage))).toEqual(expected);
        }
      }
    }
  });

  it("falls back to the whole list for a brief its month's index does not hold", async () => {
    await history();
    await searchBriefs(store, "briefs", parseFilter({}), { now, background: false });
    // Written around the service in an old month, before the watermark: no view lists it.
    const hand = {
      kind: "briefs" as const,
      ...(await storeBrief(store, { receivedAt: "2026-01-09T08:00:00.000Z" })),
    };
    for (const status of FILTERS) {
      const filter = statusFilter(status);
      const whole = await wholeList("briefs", filter);
      expect(whole.all).not.toContain(hand.record.reference);
      const watching = watched();
      const shownHere = shown(await around(hand, filter, null, watching.store));
      expect(shownHere).toEqual(fromWholeList(whole, hand.record.reference, null));
      expect(shownHere.previous).toBeNull();
      // The view reads March, January is looked in, then every month holding the list: the whole read.
      expect(new Set(watching.months).size).toBe(MONTHS.length);
    }
    // A month not indexed at all: not in the list, and nothing read for it.
    const outside = {
      kind: "briefs" as const,
      ...(await storeBrief(store, { receivedAt: "2024-05-09T08:00:00.000Z" })),
    };
    const watching = watched();
    expect(shown(await around(outside, parseFilter({}), null, watching.store))).toEqual(
      fromWholeList(await wholeList("briefs", parseFilter({})), outside.record.reference, null),
    );
    expect(watching.months).toEqual(["2026/03"]);
  });

  it("reads only the newest month for a brief in it, and the neighbours' month at its edge", async () => {
    const briefs = await history();
    await searchBriefs(store, "briefs", parseFilter({}), { now, background: false });
    const { all } = await wholeList("briefs", parseFilter({}));
    const at = (position: number) => briefs.find((brief) => brief.record.reference === all[position])!;
    // Position 10 (page 1, all in March): March alone, and that is the view's own read.
    const inside = watched();
    const first = await around(at(10), parseFilter({}), null, inside.store);
    expect(first.previous?.page).toBe(1);
    expect(inside.months).toEqual(["2026/03"]);
    // The last of March, opened from page 1: March, and February for the next brief.
    const edge = watched();
    const last = await around(at(MARCH - 1), parseFilter({}), 1, edge.store);
    expect(last.next).toMatchObject({ page: 4, brief: { reference: all[MARCH] } });
    expect(last.next?.brief.receivedAt.slice(0, 7)).toBe("2026-02");
    expect(edge.months).toEqual(["2026/03", "2026/02"]);
    // The first page's last brief: its next is on page 2, still in March.
    const pageEdge = watched();
    const fiftieth = await around(at(PAGE_SIZE - 1), parseFilter({}), null, pageEdge.store);
    expect(fiftieth.next).toMatchObject({ page: 2, brief: { reference: all[PAGE_SIZE] } });
    expect(pageEdge.months).toEqual(["2026/03"]);
    // A status filter: handled in March only, without reading an older month.
    const handled = (await wholeList("briefs", parseFilter({ status: "handled" }))).all;
    const status = watched();
    await around(
      briefs.find((brief) => brief.record.reference === handled[1])!,
      parseFilter({ status: "handled" }),
      null,
      status.store,
    );
    expect(status.months).toEqual(["2026/03"]);
  });

  it("keeps the spam list's filter (no status) and the full read for a search", async () => {
    await history();
    const spam: OpenBrief[] = [];
    for (let i = 0; i < 4; i++) {
      const stored = await storeBrief(store, {
        receivedAt: `2026-0${1 + (i % 3)}-0${i + 1}T10:00:00.000Z`,
        folder: "spam",
      });
      spam.push({ kind: "spam", ...stored });
    }
    await searchBriefs(store, "spam", parseFilter({}), { now, background: false });
    const whole = await wholeList("spam", parseFilter({}));
    expect(whole.all).toHaveLength(4);
    for (const brief of spam) {
      expect(shown(await around(brief, parseFilter({})))).toEqual(
        fromWholeList(whole, brief.record.reference, null),
      );
    }
    // A search reads the whole list, as before.
    const briefs = (await wholeList("briefs", parseFilter({}))).all;
    const searched = parseFilter({ q: "ada", status: "new" });
    const found = await wholeList("briefs", searched);
    const watching = watched();
    const stored = {
      kind: "briefs" as const,
      folder: "",
      record: { reference: found.all[3]! },
    } as unknown as OpenBrief;
    expect(shown(await around(stored, searched, null, watching.store))).toEqual(
      fromWholeList(found, found.all[3]!, null),
    );
    expect(new Set(watching.months)).toEqual(
      new Set([...watching.months, ...MONTHS.map(([month]) => month.replace("-", "/"))]),
    );
    expect(briefs.length).toBeGreaterThan(found.all.length);
  });
});
