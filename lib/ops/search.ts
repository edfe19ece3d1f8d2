import type { ObjectStore } from "../store";
import type { Folder } from "../briefs";
import { pendingReferences } from "../deliveries";
import { catalogPage, MONTH_CONCURRENCY } from "./catalog-list";
import type { InboxRecordError } from "./errors";
import { type IndexView, indexedMonths, monthIndex, openIndex, VIEW_REBUILD_BUDGET_MS } from "./index-view";
import {
  type BriefFilter,
  type BriefPage,
  catalogStatus,
  type DeliveryMark,
  deliveryMarks,
  emptyCounts,
  matches,
  matchesSearch,
  newestFirst,
  NO_PENDING_DELIVERIES,
  PAGE_SIZE,
  pageWithin,
  type PendingDeliveries,
} from "./list-filter";
import { checkMonth } from "./month-check";
import { mapLimit, monthNumber, monthRange, readBriefs } from "./reader";
import type { StoredBrief } from "./records";
import { type BriefSummary, summarize } from "./summary";

/**
 * Finding briefs: a page of the list (the filters in `list-filter.ts`; none or a status alone from
 * the catalog, `catalog-list.ts`, any other from every month index in range), and every brief that
 * passes them for the export.
 */

export interface SearchOptions {
  page?: number;
  pageSize?: number;
  now?: Date;
  onProblem?: (problem: InboxRecordError) => void;
  /** How long indexing a lost index may hold this view (the rest goes on in the background). */
  budgetMs?: number;
  /** Goes on indexing after the response; `false` for callers outside a request that need no more. */
  background?: boolean;
}

/** The indexed months the date filters allow, newest first. */
function monthsInRange(view: IndexView, filter: Pick<BriefFilter, "from" | "to">): number[] {
  const monthOf = (day: string) => monthNumber(Number(day.slice(0, 4)), Number(day.slice(5, 7)));
  return indexedMonths(view)
    .map(({ month }) => month)
    .filter(
      (month) =>
        (!filter.from || month >= monthOf(filter.from)) && (!filter.to || month <= monthOf(filter.to)),
    );
}

/** Every summary of the view's kind in the months the date filters allow (all months without them). */
async function summariesOf(
  store: ObjectStore,
  view: IndexView,
  filter: Pick<BriefFilter, "from" | "to">,
): Promise<BriefSummary[]> {
  const months = monthsInRange(view, filter);
  const indexes = await mapLimit(months, MONTH_CONCURRENCY, (month) => monthIndex(store, view, month));
  return indexes.flatMap((index) => index.entries);
}

/**
 * Every summary of `kind` in the months the date filters allow, each month checked against the
 * store's listing first (`checkMonth`): what an erasure, retention and the person's-data page need.
 * They must find every brief there is, so they never take the index's word alone: it misses what
 * was written around the service (a hand edit, a process stopped between a brief's write and its
 * index update). Each check also repairs the month's index; it costs a listing of every month in
 * range, as every view did before the index was kept at write time.
 */
export async function summariesInRange(
  store: ObjectStore,
  kind: Folder,
  filter: Pick<BriefFilter, "from" | "to">,
  now: Date,
  onProblem?: (problem: InboxRecordError) => void,
): Promise<BriefSummary[]> {
  const range = await monthRange(store, kind, now, filter.from ?? undefined);
  if (range === null) return [];
  const to = filter.to ? monthNumber(Number(filter.to.slice(0, 4)), Number(filter.to.slice(5, 7))) : null;
  const newest = to === null ? range.newest : Math.min(range.newest, to);
  const months = Array.from({ length: Math.max(0, newest - range.oldest + 1) }, (_, index) => newest - index);
  // `from: null`: the whole month was checked, so the catalog may count it as indexed in full.
  const indexes = await mapLimit(months, MONTH_CONCURRENCY, (month) =>
    checkMonth(store, kind, month, { onProblem, from: null }),
  );
  return indexes.flatMap((index) => index.entries);
}

/** A view of `kind`'s index and the pending deliveries: what every page of the list reads first. */
export interface OpenedList {
  view: IndexView;
  pending: PendingDeliveries;
}

/** Opens the index for a page of the list (`searchBriefs`, a brief's page). */
export async function openList(
  store: ObjectStore,
  kind: Folder,
  {
    now = new Date(),
    onProblem,
    budgetMs = VIEW_REBUILD_BUDGET_MS,
    background = true,
  }: Omit<SearchOptions, "page" | "pageSize"> = {},
): Promise<OpenedList> {
  // Spam is never sent: it has no deliveries to mark.
  const [view, pending] = await Promise.all([
    openIndex(store, kind, { now, budgetMs, background, onProblem }),
    kind === "briefs" ? pendingReferences(store) : NO_PENDING_DELIVERIES,
  ]);
  return { view, pending };
}

/** One page of the list (1-based, clamped to the last page), newest first, with the counts. */
export async function searchBriefs(
  store: ObjectStore,
  kind: Folder,
  filter: BriefFilter,
  { page = 1, pageSize = PAGE_SIZE, ...options }: SearchOptions = {},
): Promise<BriefPage> {
  return listPage(store, await openList(store, kind, options), filter, page, pageSize);
}

/** One page of an opened list: from the catalog when the filter allows, else every month in range. */
export async function listPage(
  store: ObjectStore,
  { view, pending }: OpenedList,
  filter: BriefFilter,
  page: number,
  pageSize: number,
): Promise<BriefPage> {
  const fromCatalog = catalogStatus(filter);
  if (fromCatalog) return catalogPage(store, view, pending, fromCatalog.status, page, pageSize);
  const counts = emptyCounts();
  const deliveryCounts: Record<DeliveryMark, number> = { retrying: 0, failed: 0 };
  const found: BriefSummary[] = [];
  for (const summary of await summariesOf(store, view, filter)) {
    if (!matchesSearch(summary, filter)) continue;
    const marks = deliveryMarks(summary.reference, pending);
    const byDelivery = filter.delivery === null || marks.includes(filter.delivery);
    const byStatus = filter.status === null || summary.status === filter.status;
    if (byDelivery) counts[summary.status]++;
    if (byStatus) for (const mark of marks) deliveryCounts[mark]++;
    if (byDelivery && byStatus) found.push(summary);
  }
  found.sort(newestFirst);
  const { page: current, pages } = pageWithin(page, found.length, pageSize);
  return {
    briefs: found.slice((current - 1) * pageSize, current * pageSize),
    total: found.length,
    counts,
    deliveryCounts,
    pending,
    page: current,
    pages,
    coverage: view.coverage,
  };
}

/** Every brief of `kind` in full that passes the filters, newest first (for the export). */
export async function* filteredBriefs(
  store: ObjectStore,
  kind: Folder,
  filter: BriefFilter,
  options: { now?: Date; onProblem?: (problem: InboxRecordError) => void } = {},
): AsyncGenerator<StoredBrief> {
  const pending =
    filter.delivery !== null && kind === "briefs" ? await pendingReferences(store) : NO_PENDING_DELIVERIES;
  for await (const brief of readBriefs(store, kind, {
    since: filter.from ?? undefined,
    onProblem: options.onProblem,
    now: options.now,
  })) {
    if (matches(summarize(brief), filter, pending)) yield brief;
  }
}
