import type { ObjectStore } from "../store";
import { type CatalogMonth, catalogBriefs, catalogMonths, shownInMonth } from "./catalog-list";
import { placeOf } from "./index-update";
import { monthIndex } from "./index-view";
import {
  type BriefFilter,
  catalogStatus,
  PAGE_SIZE,
  pageWithin,
  type PendingDeliveries,
} from "./list-filter";
import type { StoredBrief } from "./records";
import { listPage, type OpenedList, openList, type SearchOptions } from "./search";
import type { BriefStatus } from "./state";
import type { BriefSummary } from "./summary";

/**
 * A brief's own page shows the list it was opened from beside it: a page of that list, and the
 * briefs before and after it in the whole list. With no filter or a status alone, the brief's
 * place comes from the catalog's counts of the newer months and its place in its own month's
 * index, and only the page and the two neighbours are read (issue 33); any other filter reads the
 * whole list, as the list's search does.
 */

/** A brief next to the open one in the list, with the list's page that holds it. */
export interface ListNeighbour {
  brief: BriefSummary;
  page: number;
}

export interface ListAround {
  /** The page of the list to show: the one asked for, else the one holding the brief (clamped to the list). */
  briefs: BriefSummary[];
  page: number;
  pending: PendingDeliveries;
  /** `null` at either end of the list, and both when the brief is not in it (another status, not indexed). */
  previous: ListNeighbour | null;
  next: ListNeighbour | null;
}

/** What the list needs of the open brief: where it is stored and its reference. */
export type OpenBrief = Pick<StoredBrief, "kind" | "folder" | "record">;

const pageOf = (position: number) => Math.floor(position / PAGE_SIZE) + 1;

/** The page to show: the asked one, else the brief's (the first when it is not in the list), within the list. */
function pageToShow(at: number, askedPage: number | null, total: number): number {
  return pageWithin(askedPage ?? (at >= 0 ? pageOf(at) : 1), total, PAGE_SIZE).page;
}

function neighbour(brief: BriefSummary | undefined, position: number): ListNeighbour | null {
  return brief ? { brief, page: pageOf(position) } : null;
}

/** The whole list read, the brief looked for in it: what any filter can do, and always right. */
async function aroundInFullList(
  store: ObjectStore,
  opened: OpenedList,
  filter: BriefFilter,
  reference: string,
  askedPage: number | null,
): Promise<ListAround> {
  const { briefs: all, pending } = await listPage(store, opened, filter, 1, Number.MAX_SAFE_INTEGER);
  const at = all.findIndex((brief) => brief.reference === reference);
  const page = pageToShow(at, askedPage, all.length);
  return {
    briefs: all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    page,
    pending,
    previous: at > 0 ? neighbour(all[at - 1], at - 1) : null,
    next: at >= 0 ? neighbour(all[at + 1], at + 1) : null,
  };
}

/**
 * The brief's position in the catalog's list: `-1` when the list leaves it out (its month not
 * indexed or holding none of the status, or the brief of another status), `null` when its month's
 * index does not hold it (only the full read can say where it is).
 */
async function positionInCatalog(
  store: ObjectStore,
  { view }: OpenedList,
  months: readonly CatalogMonth[],
  status: BriefStatus | null,
  brief: OpenBrief,
): Promise<number | null> {
  const { month } = placeOf(brief.folder);
  const row = months.findIndex((candidate) => candidate.month === month);
  // The list is made of the catalog's months holding the status: the brief's month is not read.
  if (row < 0 || months[row]!.inMonth === 0) return -1;
  const { entries } = await monthIndex(store, view, month);
  if (!entries.some((summary) => summary.reference === brief.record.reference)) return null;
  const inMonth = shownInMonth(entries, status).findIndex(
    (summary) => summary.reference === brief.record.reference,
  );
  if (inMonth < 0) return -1;
  return months.slice(0, row).reduce((before, { inMonth: newer }) => before + newer, 0) + inMonth;
}

/** With no filter or a status alone: the page and the neighbours read from the months that hold them. */
async function aroundInCatalog(
  store: ObjectStore,
  opened: OpenedList,
  status: BriefStatus | null,
  brief: OpenBrief,
  askedPage: number | null,
): Promise<ListAround | null> {
  const months = catalogMonths(opened.view, status);
  const at = await positionInCatalog(store, opened, months, status, brief);
  if (at === null) return null;
  const total = months.reduce((sum, { inMonth }) => sum + inMonth, 0);
  const page = pageToShow(at, askedPage, total);
  const start = (page - 1) * PAGE_SIZE;
  const briefs = await catalogBriefs(store, opened.view, status, start, PAGE_SIZE);
  const shown = { briefs, page, pending: opened.pending };
  if (at < 0) return { ...shown, previous: null, next: null };
  // The briefs at `at - 1` to `at + 1`: from the page when it holds them, else from their months.
  const first = Math.max(0, at - 1);
  const window =
    first >= start && at + 2 <= start + PAGE_SIZE
      ? briefs.slice(first - start, at + 2 - start)
      : await catalogBriefs(store, opened.view, status, first, at + 2 - first);
  // Counts that disagree with the indexes (a write landing meanwhile): the full read says.
  if (window[at - first]?.reference !== brief.record.reference) return null;
  return {
    ...shown,
    previous: at > 0 ? neighbour(window[0], at - 1) : null,
    next: neighbour(window[at - first + 1], at + 1),
  };
}

/**
 * The list around `brief` (see the module's comment): `filter` as the list's URL has it, `askedPage`
 * the list's page it was opened from, if any.
 */
export async function listAroundBrief(
  store: ObjectStore,
  brief: OpenBrief,
  filter: BriefFilter,
  askedPage: number | null,
  options: Omit<SearchOptions, "page" | "pageSize"> = {},
): Promise<ListAround> {
  const opened = await openList(store, brief.kind, options);
  const fromCatalog = catalogStatus(filter);
  const around = fromCatalog && (await aroundInCatalog(store, opened, fromCatalog.status, brief, askedPage));
  return around || aroundInFullList(store, opened, filter, brief.record.reference, askedPage);
}
