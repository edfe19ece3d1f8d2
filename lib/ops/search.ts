import type { ObjectStore } from "../store";
import type { Folder } from "../briefs";
import type { InboxRecordError } from "./errors";
import { mapLimit, monthNumber, monthRange, readBriefs } from "./reader";
import type { StoredBrief } from "./records";
import { BRIEF_STATUSES, type BriefStatus, isBriefStatus } from "./state";
import { type BriefSummary, monthSummaries, summarize } from "./summary";

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
}

export const NO_FILTER: BriefFilter = { status: null, from: null, to: null, q: null };

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
  return {
    status: isBriefStatus(status) ? status : null,
    from: day(one("from")),
    to: day(one("to")),
    q: q ? q : null,
  };
}

/** The filters as query parameters (only those set), for links that keep them. */
export function filterQuery(filter: BriefFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ["status", "from", "to", "q"] as const) {
    const value = filter[name];
    if (value) params.set(name, value);
  }
  return params;
}

const compact = (value: string) => value.toLowerCase().replace(/[\s-]/g, "");

/** Whether a brief passes the filters other than `status` (the counts are made before that one). */
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

export function matches(summary: BriefSummary, filter: BriefFilter): boolean {
  return matchesSearch(summary, filter) && (filter.status === null || summary.status === filter.status);
}

export interface BriefPage {
  briefs: BriefSummary[];
  /** Briefs that pass every filter. */
  total: number;
  /** Briefs that pass the filters but `status`, by status. */
  counts: Record<BriefStatus, number>;
  page: number;
  pages: number;
}

function newestFirst(a: BriefSummary, b: BriefSummary): number {
  const key = (brief: BriefSummary) => `${brief.receivedAt} ${brief.reference}`;
  return key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0;
}

/**
 * Months summarised at once: each is one listing (and, on a remote store, round trips), so a few
 * together hide the latency without flooding the store.
 */
const MONTH_CONCURRENCY = 6;

/** Every summary of `kind` in the months the date filters allow (all months without them). */
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
  const summaries = await mapLimit(months, MONTH_CONCURRENCY, (month) =>
    monthSummaries(store, kind, month, onProblem),
  );
  return summaries.flat();
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
  }: { page?: number; pageSize?: number; now?: Date; onProblem?: (problem: InboxRecordError) => void } = {},
): Promise<BriefPage> {
  const counts = Object.fromEntries(BRIEF_STATUSES.map((status) => [status, 0])) as Record<
    BriefStatus,
    number
  >;
  const found: BriefSummary[] = [];
  for (const summary of await summariesInRange(store, kind, filter, now, onProblem)) {
    if (!matchesSearch(summary, filter)) continue;
    counts[summary.status]++;
    if (filter.status === null || summary.status === filter.status) found.push(summary);
  }
  found.sort(newestFirst);
  const pages = Math.max(1, Math.ceil(found.length / pageSize));
  const current = Math.min(Math.max(1, Math.floor(page)), pages);
  return {
    briefs: found.slice((current - 1) * pageSize, current * pageSize),
    total: found.length,
    counts,
    page: current,
    pages,
  };
}

/** Every brief of `kind` in full that passes the filters, newest first (for the export). */
export async function* filteredBriefs(
  store: ObjectStore,
  kind: Folder,
  filter: BriefFilter,
  options: { now?: Date; onProblem?: (problem: InboxRecordError) => void } = {},
): AsyncGenerator<StoredBrief> {
  for await (const brief of readBriefs(store, kind, {
    since: filter.from ?? undefined,
    onProblem: options.onProblem,
    now: options.now,
  })) {
    if (matches(summarize(brief), filter)) yield brief;
  }
}
