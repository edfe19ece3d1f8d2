import type { ObjectStore } from "../store";
import { type IndexView, indexedMonths, monthIndex } from "./index-view";
import {
  type BriefPage,
  type DeliveryMark,
  deliveryMarks,
  emptyCounts,
  newestFirst,
  pageWithin,
  type PendingDeliveries,
} from "./list-filter";
import { PENDING_LOOKUP_LIMIT, pendingMonths } from "./pending-months";
import { mapLimit } from "./reader";
import { BRIEF_STATUSES, type BriefStatus } from "./state";
import type { BriefSummary } from "./summary";

/**
 * The list the catalog can answer (none, or a status alone): its positions counted from the
 * catalog's counts by month, its briefs read from only the month indexes that hold them.
 */

/** Month indexes read at once for a search: each is one call (and, at 5,000 briefs, a few MB to parse). */
export const MONTH_CONCURRENCY = 6;

/**
 * The delivery counts of the status filter: the pending briefs of that status. `unplaced`: the
 * pending references not in the months the page read; their months are found from their records
 * (a few) or, failing that, every other month holding that status is read.
 */
async function countPendingElsewhere(
  store: ObjectStore,
  view: IndexView,
  status: BriefStatus,
  read: ReadonlySet<number>,
  tally: (entries: readonly BriefSummary[]) => void,
  unplaced: ReadonlySet<string>,
): Promise<void> {
  const located = unplaced.size <= PENDING_LOOKUP_LIMIT ? await pendingMonths(store, unplaced) : null;
  const months = indexedMonths(view)
    .filter(({ month, counts }) => !read.has(month) && counts[status] > 0)
    .filter(({ month }) => located === null || located.has(month));
  await mapLimit(months, MONTH_CONCURRENCY, async ({ month }) =>
    tally((await monthIndex(store, view, month)).entries),
  );
}

/** The months whose briefs (`inMonth` each, newest month first) include any of `start` to `start + size`. */
function monthsHolding(months: readonly CatalogMonth[], start: number, size: number) {
  const holding: number[] = [];
  let before = 0;
  for (const { month, inMonth } of months) {
    if (before >= start + size) break;
    if (inMonth > 0 && before + inMonth > start) holding.push(month);
    before += inMonth;
  }
  return holding;
}

/** An indexed month, with how many briefs of the catalog's list (none, or one status) it holds. */
export interface CatalogMonth {
  month: number;
  inMonth: number;
}

/** The catalog's list month by month, newest first: the months its positions are counted over. */
export function catalogMonths(view: IndexView, status: BriefStatus | null): CatalogMonth[] {
  return indexedMonths(view).map(({ month, total: all, counts: byStatus }) => ({
    month,
    inMonth: status === null ? all : byStatus[status],
  }));
}

/** A month's briefs of the catalog's list (none, or one status), in the list's order. */
export function shownInMonth(entries: readonly BriefSummary[], status: BriefStatus | null): BriefSummary[] {
  return entries.filter((summary) => status === null || summary.status === status).sort(newestFirst);
}

/**
 * Briefs `start` to `start + size` of the catalog's list, newest first, from only the months the
 * catalog's counts say hold them; `onMonth` sees each month index read on the way.
 */
export async function catalogBriefs(
  store: ObjectStore,
  view: IndexView,
  status: BriefStatus | null,
  start: number,
  size: number,
  onMonth: (month: number, entries: readonly BriefSummary[]) => void = () => {},
): Promise<BriefSummary[]> {
  const briefs: BriefSummary[] = [];
  const months = catalogMonths(view, status);
  // The months the catalog says hold the page, read six at once first (a list of several months).
  // The loop below still goes by what each index holds: it reads any other month it needs, and
  // makes a failed read again, so only a month the page needs can fail it.
  await mapLimit(monthsHolding(months, start, size), MONTH_CONCURRENCY, (month) =>
    monthIndex(store, view, month).catch(() => null),
  );
  let before = 0;
  for (const { month, inMonth } of months) {
    if (briefs.length >= size) break;
    if (inMonth === 0 || before + inMonth <= start) {
      before += inMonth;
      continue;
    }
    const { entries } = await monthIndex(store, view, month);
    onMonth(month, entries);
    const shown = shownInMonth(entries, status);
    briefs.push(
      ...shown.slice(Math.max(0, start - before), Math.max(0, start - before) + size - briefs.length),
    );
    before += shown.length;
  }
  return briefs;
}

/**
 * The unfiltered list, and the list filtered by status alone: counts from the catalog, and the
 * page's briefs from only the months that hold them, newest first (for the first page, the newest
 * month holding a brief of that status), so it costs what it shows, not the history.
 */
export async function catalogPage(
  store: ObjectStore,
  view: IndexView,
  pending: PendingDeliveries,
  status: BriefStatus | null,
  page: number,
  pageSize: number,
): Promise<BriefPage> {
  const counts = emptyCounts();
  for (const { counts: month } of Object.values(view.catalog.months)) {
    for (const status of BRIEF_STATUSES) counts[status] += month[status];
  }
  const total = status === null ? counts.new + counts.handled + counts.archived : counts[status];
  const { page: current, pages } = pageWithin(page, total, pageSize);
  const deliveryCounts: Record<DeliveryMark, number> =
    status === null
      ? { retrying: pending.retrying.size, failed: pending.failed.size }
      : { retrying: 0, failed: 0 };
  // With a status, the delivery counts are of that status's pending briefs: found as months are read.
  const unplaced = new Set(status === null ? [] : [...pending.retrying, ...pending.failed]);
  const tally = (entries: readonly BriefSummary[]) => {
    for (const summary of entries) {
      if (!unplaced.delete(summary.reference) || summary.status !== status) continue;
      for (const mark of deliveryMarks(summary.reference, pending)) deliveryCounts[mark]++;
    }
  };
  const read = new Set<number>();
  const briefs = await catalogBriefs(
    store,
    view,
    status,
    (current - 1) * pageSize,
    pageSize,
    (month, entries) => {
      read.add(month);
      if (unplaced.size > 0) tally(entries);
    },
  );
  if (status !== null && unplaced.size > 0)
    await countPendingElsewhere(store, view, status, read, tally, unplaced);
  return {
    briefs,
    total,
    counts,
    deliveryCounts,
    pending,
    page: current,
    pages,
    coverage: view.coverage,
  };
}
