import type { Folder } from "../briefs";
import { finishInBackground } from "../background";
import { createIfAbsent, type ObjectStore } from "../store";
import { type Catalog, changeCatalog } from "./catalog";
import type { InboxRecordError } from "./errors";
import { checkMonth } from "./month-check";
import { type BriefFolder, listMonth, monthPath, monthRange } from "./reader";
import { readMonthIndex } from "./month-index";
import type { MonthIndex } from "./summary";

/**
 * Rebuilding a lost index (or one of another version) from the briefs, newest month first, each
 * month written (index, then its counts in the catalog) as soon as it is read, so that the work
 * done survives a request that ends. A view does what fits in its time budget and hands the rest
 * to the background (`after()` on Vercel), which works for a bounded time too; the next views go
 * on from where it stopped. A month being rebuilt is claimed (`index/<kind>/building/YYYY-MM`) so
 * that background runs of concurrent views do not read it twice.
 */

/** How long a view's background run may rebuild: well inside a function's maximum duration. */
export const BACKGROUND_REBUILD_MS = 45_000;

/** How long a claim on a month holds: longer than any month takes to read. */
const CLAIM_MS = 120_000;

/** `YYYY-MM-DD` of a time. */
export function dayOf(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * How far behind `now` the watermark stays: a brief's `delivery.json` may land seconds after its
 * `brief.json`, and instances' clocks differ; days from the watermark on are listed by each view.
 */
export const WATERMARK_MARGIN_MS = 10 * 60_000;

/** A catalog to start from when there is none of this version: every month of the store still to index. */
export async function startCatalog(store: ObjectStore, kind: Folder, now: Date): Promise<Catalog> {
  const watermark = dayOf(now.getTime() - WATERMARK_MARGIN_MS);
  const range = await monthRange(store, kind, now);
  const fresh: Catalog = { months: {}, watermark, span: range };
  return (await changeCatalog(store, kind, { fresh })) ?? fresh;
}

/** The months of the span not indexed yet, or only in part, newest first. */
export function monthsToIndex(catalog: Catalog): number[] {
  const { span } = catalog;
  if (span === null) return [];
  const months: number[] = [];
  for (let month = span.newest; month >= span.oldest; month--) {
    const count = catalog.months[monthPath(month)];
    if (count === undefined || count.from !== undefined) months.push(month);
  }
  return months;
}

/** What the indexed months cover: all of the history, or the newest months down to `from`. */
export interface Coverage {
  complete: boolean;
  /** `YYYY-MM-DD`: the oldest day of the unbroken run of indexed days from the newest; `null`: none. */
  from: string | null;
  /** Months still to index. */
  monthsLeft: number;
}

export function coverageOf(catalog: Catalog): Coverage {
  const left = monthsToIndex(catalog);
  if (left.length === 0 || catalog.span === null) return { complete: true, from: null, monthsLeft: 0 };
  let from: string | null = null;
  for (let month = catalog.span.newest; month >= catalog.span.oldest; month--) {
    const count = catalog.months[monthPath(month)];
    if (count === undefined) break;
    from = count.from ?? `${monthPath(month).replace("/", "-")}-01`;
    if (count.from !== undefined) break;
  }
  return { complete: false, from, monthsLeft: left.length };
}

async function claim(store: ObjectStore, kind: Folder, month: number): Promise<string | null> {
  const path = `index/${kind}/building/${monthPath(month).replace("/", "-")}`;
  const body = `${JSON.stringify({ until: Date.now() + CLAIM_MS, nonce: Math.random() })}\n`;
  const { created, existing } = await createIfAbsent(store, path, body, "application/json");
  if (created) return path;
  try {
    const { until } = JSON.parse(Buffer.from(existing ?? []).toString("utf8")) as { until: number };
    if (until > Date.now()) return null;
  } catch {
    // Unreadable: treated as expired.
  }
  await store.delete(path);
  return (await createIfAbsent(store, path, body, "application/json")).created ? path : null;
}

export interface RebuildOptions {
  /** Stop starting months after this many ms (a month under way is finished). */
  budgetMs: number;
  /** Skip months another run has claimed (a background run); a view's own run does not wait for them. */
  respectClaims: boolean;
  onProblem?: (problem: InboxRecordError) => void;
  /** Told of each month's index as written. */
  onIndexed?: (month: number, index: MonthIndex) => void;
}

/** Briefs a rebuild reads before it writes what it has: the first step small, so a first page shows soon. */
const FIRST_STEP_BRIEFS = 150;
const STEP_BRIEFS = 400;

/**
 * Indexes one month in steps of whole days, newest first, writing the index and the catalog's
 * counts (with the oldest day done) after each, from the day before the catalog's `from` when an
 * earlier run did part of it. Stops between steps once `deadline` has passed; answers whether the
 * month is whole.
 */
async function rebuildMonth(
  store: ObjectStore,
  kind: Folder,
  month: number,
  doneFrom: string | undefined,
  deadline: number,
  { onProblem, onIndexed }: Pick<RebuildOptions, "onProblem" | "onIndexed">,
): Promise<boolean> {
  const [days, known] = await Promise.all([
    listMonth(store, kind, month),
    readMonthIndex(store, kind, month),
  ]);
  const left = days.filter((day) => doneFrom === undefined || (day[0]?.day ?? "") < doneFrom);
  let index = known;
  let first = doneFrom === undefined;
  do {
    const step: BriefFolder[][] = [];
    const size = first ? FIRST_STEP_BRIEFS : STEP_BRIEFS;
    while (left.length > 0 && step.flat().length < size) step.push(left.shift()!);
    first = false;
    const from = left.length === 0 ? null : (step.at(-1)?.[0]?.day ?? null);
    index = await checkMonth(store, kind, month, {
      days: step.map((day) => day[0]?.day ?? ""),
      folders: step.flat(),
      known: index,
      from,
      onProblem,
    });
    onIndexed?.(month, index);
    if (left.length > 0 && Date.now() >= deadline) return false;
  } while (left.length > 0);
  return true;
}

/** Indexes the catalog's missing months, newest first, within `budgetMs`; answers how many it finished. */
export async function rebuildMonths(
  store: ObjectStore,
  kind: Folder,
  catalog: Catalog,
  { budgetMs, respectClaims, onProblem, onIndexed }: RebuildOptions,
): Promise<number> {
  const deadline = Date.now() + budgetMs;
  let done = 0;
  for (const month of monthsToIndex(catalog)) {
    if (Date.now() >= deadline) break;
    const claimed = await claim(store, kind, month).catch(() => null);
    if (claimed === null && respectClaims) continue;
    try {
      const from = catalog.months[monthPath(month)]?.from;
      if (await rebuildMonth(store, kind, month, from, deadline, { onProblem, onIndexed })) done++;
    } finally {
      if (claimed !== null) await store.delete(claimed).catch(() => {});
    }
  }
  return done;
}

/** Goes on rebuilding after the response (bounded), when months are left. */
export function rebuildInBackground(
  store: ObjectStore,
  kind: Folder,
  catalog: Catalog,
  onProblem?: (problem: InboxRecordError) => void,
): void {
  if (monthsToIndex(catalog).length === 0) return;
  finishInBackground(
    rebuildMonths(store, kind, catalog, { budgetMs: BACKGROUND_REBUILD_MS, respectClaims: true, onProblem }),
    `indexing the ${kind} inbox`,
  );
}

/** Months a full rebuild has, for the ops tool's `reindex`: every month of the store, from nothing. */
export async function reindex(
  store: ObjectStore,
  kind: Folder,
  now: Date,
  onProblem?: (problem: InboxRecordError) => void,
): Promise<number> {
  const paths: string[] = [];
  for await (const info of store.list(`index/${kind}/`)) paths.push(info.path);
  for (const path of paths) await store.delete(path);
  const catalog = await startCatalog(store, kind, now);
  return rebuildMonths(store, kind, catalog, { budgetMs: Infinity, respectClaims: false, onProblem });
}
