import type { Coverage } from "./rebuild";
import { BRIEF_STATUSES, type BriefStatus, isBriefStatus } from "./state";
import type { BriefSummary } from "./summary";

/**
 * The list's filters, as the web inbox keeps them in its URL (and the ops tool's export takes
 * them), applied to summaries (`summary.ts`) for the list and to full briefs for the export, by
 * one `matches`; the list's order and what a page of it holds.
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

/** How many pages `total` briefs make, and `page` (1-based) kept within them. */
export function pageWithin(page: number, total: number, pageSize: number): { page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return { page: Math.min(Math.max(1, Math.floor(page)), pages), pages };
}

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

/** The list's order: newest first, then by reference. */
export function newestFirst(a: BriefSummary, b: BriefSummary): number {
  const key = (brief: BriefSummary) => `${brief.receivedAt} ${brief.reference}`;
  return key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0;
}

export function emptyCounts(): Record<BriefStatus, number> {
  return Object.fromEntries(BRIEF_STATUSES.map((status) => [status, 0])) as Record<BriefStatus, number>;
}

/** The filter the catalog can answer: none, or a status alone (no search, dates or delivery mark). */
export function catalogStatus(filter: BriefFilter): { status: BriefStatus | null } | null {
  const { status, ...others } = filter;
  return filterQuery({ ...others, status: null }).size === 0 ? { status } : null;
}
