import type { ObjectStore } from "../store";
import type { Folder } from "../briefs";
import { pendingReferences } from "../deliveries";
import type { InboxRecordError } from "./errors";
import { type IndexView, indexedMonths, monthIndex, openIndex, VIEW_REBUILD_BUDGET_MS } from "./index-view";
import { checkMonth } from "./month-check";
import { PENDING_LOOKUP_LIMIT, pendingMonths } from "./pending-months";
import { mapLimit, monthNumber, monthRange, readBriefs } from "./reader";
import type { Coverage } from "./rebuild";
import type { StoredBrief } from "./records";
import { BRIEF_STATUSES, type BriefStatus, isBriefStatus } from "./state";
import { type BriefSummary, summarize } from "./summary";

/**
 * Finding briefs: the filters the web inbox keeps in its URL (and the ops tool's export takes),
 * applied to summaries (`summary.ts`) for the list and to full briefs for the export, by one
 * `matches`.
 */

export interface BriefFilter {
  status: BriefStatus | null;
  /** `YYYY-MM-DD` (UTC), inclusive. */
  from: string | null;
  to: string | null;
  /** Case-insensitive, in name, email, company, reference (with or without dashes) or description. */
  q: string | null;
  /** Only briefs with a channel retrying on the schedule, or one that gave up. */
  delivery: DeliveryMark | null;
}

export const NO_FILTER: BriefFilter = { status: null, from: null, to: null, q: null, delivery: null };

/** What the list marks a brief with, and filters on: a channel retrying, or one that gave up. */
export const DELIVERY_MARKS = ["retrying", "failed"] as const;
export type DeliveryMark = (typeof DELIVERY_MARKS)[number];

export function isDeliveryMark(value: unknown): value is DeliveryMark {
  return DELIVERY_MARKS.includes(value as DeliveryMark);
}

/**
 * The references with a due record (`retrying`) and with a failed one (`failed`), from the two
 * folders' listings alone: marking and filtering the list costs what is pending, never a read of
 * each brief's `delivery.json`.
 */
export type PendingDeliveries = Record<DeliveryMark, ReadonlySet<string>>;

export const NO_PENDING_DELIVERIES: PendingDeliveries = { retrying: new Set(), failed: new Set() };

/** A brief's marks, `retrying` before `failed` (it may have both: one channel each). */
export function deliveryMarks(reference: string, pending: PendingDeliveries): DeliveryMark[] {
  return DELIVERY_MARKS.filter((mark) => pending[mark].has(reference));
}

/** The list's page size. */
export const PAGE_SIZE = 50;

function day(value: string | null | undefined): string | null {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value) ? value : null;
}

/**
 * Filters from query parameters: what is not a valid value is ignored, so a hand-edited URL
 * shows the list rather than an error.
 */
export function parseFilter(query: Record<string, string | string[] | undefined>): BriefFilter {
  const one = (name: string) => {
    const value = query[name];
    return typeof value === "string" ? value : undefined;
  };
  const q = one("q")?.trim().slice(0, 200);
  const status = one("status");
  const delivery = one("delivery");
  return {
    status: isBriefStatus(status) ? status : null,
    from: day(one("from")),
    to: day(one("to")),
    q: q ? q : null,
    delivery: isDeliveryMark(delivery) ? delivery : null,
  };
}

/** The filters as query parameters (only those set), for links that keep them. */
export function filterQuery(filter: BriefFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ["status", "from", "to", "q", "delivery"] as const) {
    const value = filter[name];
    if (value) params.set(name, value);
  }
  return params;
}

const compact = (value: string) => value.toLowerCase().replace(/[\s-]/g, "");

/**
 * Whether a brief passes the filters other than `status` and `delivery` (each's counts are made
 * before it).
 */
export function matchesSearch(summary: BriefSummary, filter: BriefFilter): boolean {
  const received = summary.receivedAt.slice(0, 10);
  if (filter.from && received < filter.from) return false;
  if (filter.to && received > filter.to) return false;
  if (filter.q) {
    const q = filter.q.toLowerCase();
    const inText = [summary.name, summary.email, summary.company ?? "", summary.description].some((text) =>
      text.toLowerCase().includes(q),
    );
    const reference = compact(q);
    if (!inText && (reference === "" || !compact(summary.reference).includes(reference))) return false;
  }
  return true;
}

export function matches(
  summary: BriefSummary,
  filter: BriefFilter,
  pending: PendingDeliveries = NO_PENDING_DELIVERIES,
): boolean {
  return (
    matchesSearch(summary, filter) &&
    (filter.status === null || summary.status === filter.status) &&
    (filter.delivery === null || pending[filter.delivery].has(summary.reference))
  );
}

export interface BriefPage {
  briefs: BriefSummary[];
  /** Briefs that pass every filter. */
  total: number;
  /** Briefs that pass the filters but `status`, by status. */
  counts: Record<BriefStatus, number>;
  /**
   * Briefs that pass the filters but `delivery`, by mark (a brief with both counts in each); and
   * the references behind the marks, for the rows.
   */
  deliveryCounts: Record<DeliveryMark, number>;
  pending: PendingDeliveries;
  page: number;
  pages: number;
  /** How much of the history the counts and the search cover (all of it, unless a lost index is being rebuilt). */
  coverage: Coverage;
}

function newestFirst(a: BriefSummary, b: BriefSummary): number {
  const key = (brief: BriefSummary) => `${brief.receivedAt} ${brief.reference}`;
  return key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0;
}

/** Month indexes read at once for a search: each is one call (and, at 5,000 briefs, a few MB to parse). */
const MONTH_CONCURRENCY = 6;

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

function emptyCounts(): Record<BriefStatus, number> {
  return Object.fromEntries(BRIEF_STATUSES.map((status) => [status, 0])) as Record<BriefStatus, number>;
}

/** The filter the catalog can answer: none, or a status alone (no search, dates or delivery mark). */
function catalogStatus(filter: BriefFilter): { status: BriefStatus | null } | null {
  const { status, ...others } = filter;
  return filterQuery({ ...others, status: null }).size === 0 ? { status } : null;
}

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
function monthsHolding(months: readonly { month: number; inMonth: number }[], start: number, size: number) {
  const holding: number[] = [];
  let before = 0;
  for (const { month, inMonth } of months) {
    if (before >= start + size) break;
    if (inMonth > 0 && before + inMonth > start) holding.push(month);
    before += inMonth;
  }
  return holding;
}

/**
 * The unfiltered list, and the list filtered by status alone: counts from the catalog, and the
 * page's briefs from only the months that hold them, newest first (for the first page, the newest
 * month holding a brief of that status), so it costs what it shows, not the history.
 */
async function catalogPage(
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
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const current = Math.min(Math.max(1, Math.floor(page)), pages);
  const start = (current - 1) * pageSize;
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
  const briefs: BriefSummary[] = [];
  const read = new Set<number>();
  const months = indexedMonths(view).map(({ month, total: all, counts: byStatus }) => ({
    month,
    inMonth: status === null ? all : byStatus[status],
  }));
  // The months the catalog says hold the page, read six at once first (a brief's page asks for the
  // whole list). The loop below still goes by what each index holds: it reads any other month it
  // needs, and makes a failed read again, so only a month the page needs can fail it.
  await mapLimit(monthsHolding(months, start, pageSize), MONTH_CONCURRENCY, (month) =>
    monthIndex(store, view, month).catch(() => null),
  );
  let before = 0;
  for (const { month, inMonth } of months) {
    if (briefs.length >= pageSize) break;
    if (inMonth === 0 || before + inMonth <= start) {
      before += inMonth;
      continue;
    }
    const { entries } = await monthIndex(store, view, month);
    read.add(month);
    if (unplaced.size > 0) tally(entries);
    const shown = entries.filter((summary) => status === null || summary.status === status).sort(newestFirst);
    briefs.push(
      ...shown.slice(Math.max(0, start - before), Math.max(0, start - before) + pageSize - briefs.length),
    );
    before += shown.length;
  }
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

/** One page of the list (1-based, clamped to the last page), newest first, with the counts. */
export async function searchBriefs(
  store: ObjectStore,
  kind: Folder,
  filter: BriefFilter,
  {
    page = 1,
    pageSize = PAGE_SIZE,
    now = new Date(),
    onProblem,
    budgetMs = VIEW_REBUILD_BUDGET_MS,
    background = true,
  }: SearchOptions = {},
): Promise<BriefPage> {
  // Spam is never sent: it has no deliveries to mark.
  const [view, pending] = await Promise.all([
    openIndex(store, kind, { now, budgetMs, background, onProblem }),
    kind === "briefs" ? pendingReferences(store) : NO_PENDING_DELIVERIES,
  ]);
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
  const pages = Math.max(1, Math.ceil(found.length / pageSize));
  const current = Math.min(Math.max(1, Math.floor(page)), pages);
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
