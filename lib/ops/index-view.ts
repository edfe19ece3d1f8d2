import type { Folder } from "../briefs";
import type { ObjectStore } from "../store";
import { type Catalog, clearStale, monthOfKey, readCatalog, staleMonths } from "./catalog";
import type { InboxRecordError } from "./errors";
import { checkMonth } from "./month-check";
import { mapLimit, monthNumber, monthPath } from "./reader";
import {
  type Coverage,
  coverageOf,
  dayOf,
  rebuildInBackground,
  rebuildMonths,
  startCatalog,
  WATERMARK_MARGIN_MS,
} from "./rebuild";
import { changeCatalog } from "./catalog";
import type { BriefStatus } from "./state";
import { readMonthIndex } from "./month-index";
import type { MonthIndex } from "./summary";

/**
 * What a view of the inbox reads before its page (issue 33): the catalog, brought up to date at a
 * cost that does not grow with the history. It checks the months marked stale, indexes what a
 * rebuild has left (within the view's budget, the rest in the background), and lists only the days
 * since the watermark, where arrivals are found; months before it are trusted as the writes left
 * them. The month indexes read on the way are kept for the page.
 */

export interface IndexView {
  kind: Folder;
  catalog: Catalog;
  coverage: Coverage;
  /** Month indexes already read by this view. */
  loaded: Map<number, MonthIndex>;
}

export interface OpenOptions {
  now: Date;
  /** How long this view may spend indexing missing months before it shows what it has. */
  budgetMs: number;
  /** Goes on indexing after the response (a page); `false`: only within the budget (the ops tool, erasure). */
  background: boolean;
  onProblem?: (problem: InboxRecordError) => void;
}

/** A view's default budget: the first page of a lost index shows within a few seconds on Blob. */
export const VIEW_REBUILD_BUDGET_MS = 3_000;

/** The days from `from` to `to` (`YYYY-MM-DD`, both included). */
function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let time = Date.parse(`${from}T00:00:00Z`); dayOf(time) <= to; time += 86_400_000)
    days.push(dayOf(time));
  return days;
}

/** Arrivals: the days from the watermark to tomorrow (a clock behind the writer's), checked month by month. */
async function checkArrivals(store: ObjectStore, view: IndexView, options: OpenOptions): Promise<boolean> {
  const { catalog, kind } = view;
  const days = daysBetween(catalog.watermark, dayOf(options.now.getTime() + 86_400_000));
  const byMonth = new Map<number, string[]>();
  for (const day of days) {
    const month = monthNumber(Number(day.slice(0, 4)), Number(day.slice(5, 7)));
    byMonth.set(month, [...(byMonth.get(month) ?? []), day]);
  }
  let changed = false;
  await mapLimit([...byMonth], 4, async ([month, inMonth]) => {
    const indexed = catalog.months[monthPath(month)] !== undefined;
    const pending =
      !indexed && catalog.span !== null && month >= catalog.span.oldest && month <= catalog.span.newest;
    if (pending) return; // the rebuild reads it whole
    const known = indexed ? await readMonthIndex(store, kind, month) : null;
    // A month new since the span, or one whose index is gone: read whole (it is checked once).
    const index = await checkMonth(store, kind, month, {
      known,
      days: known === null ? undefined : inMonth,
      onProblem: options.onProblem,
    });
    view.loaded.set(month, index);
    if (index !== known) changed = true;
  });
  const watermark = dayOf(options.now.getTime() - WATERMARK_MARGIN_MS);
  if (watermark <= catalog.watermark) return changed;
  await changeCatalog(store, kind, { watermark });
  return true;
}

/** Months marked stale: each checked whole against its listing, then its mark removed. */
async function checkStale(store: ObjectStore, view: IndexView, options: OpenOptions): Promise<boolean> {
  const marks = await staleMonths(store, view.kind);
  await mapLimit(marks, 2, async ({ month, path }) => {
    const mark = await store.get(path);
    if (mark === null) return;
    view.loaded.set(month, await checkMonth(store, view.kind, month, { onProblem: options.onProblem }));
    await clearStale(store, path, mark);
  });
  return marks.length > 0;
}

/** Opens the index of `kind` for a view (see the module's comment). */
export async function openIndex(store: ObjectStore, kind: Folder, options: OpenOptions): Promise<IndexView> {
  const read = await readCatalog(store, kind);
  const catalog = read ?? (await startCatalog(store, kind, options.now));
  const view: IndexView = { kind, catalog, coverage: coverageOf(catalog), loaded: new Map() };
  const rebuilt = await rebuildMonths(store, kind, catalog, {
    budgetMs: options.budgetMs,
    respectClaims: false,
    onProblem: options.onProblem,
    onIndexed: (month, index) => view.loaded.set(month, index),
  });
  const stale = await checkStale(store, view, options);
  const arrived = await checkArrivals(store, view, options);
  // Every check above wrote its counts to the catalog: read it once more when any may have.
  if (read === null || rebuilt > 0 || stale || arrived)
    view.catalog = (await readCatalog(store, kind)) ?? catalog;
  view.coverage = coverageOf(view.catalog);
  if (options.background) rebuildInBackground(store, kind, view.catalog, options.onProblem);
  return view;
}

/** A month's index for the page: from this view's reads, else the store; one lost meanwhile is read whole again. */
export async function monthIndex(store: ObjectStore, view: IndexView, month: number): Promise<MonthIndex> {
  const loaded = view.loaded.get(month) ?? (await readMonthIndex(store, view.kind, month));
  const index = loaded ?? (await checkMonth(store, view.kind, month, { known: null }));
  view.loaded.set(month, index);
  return index;
}

/** The indexed months, newest first, with their counts (by status, and in all). */
export function indexedMonths(
  view: IndexView,
): { month: number; total: number; counts: Record<BriefStatus, number> }[] {
  return Object.entries(view.catalog.months)
    .map(([key, { counts }]) => ({
      month: monthOfKey(key),
      total: counts.new + counts.handled + counts.archived,
      counts,
    }))
    .sort((a, b) => b.month - a.month);
}
