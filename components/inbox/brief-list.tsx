import Link from "next/link";
import {
  BRIEF_STATUSES,
  budgetLabel,
  type BriefFilter,
  type BriefPage,
  type BriefStatus,
  type BriefSummary,
  DELIVERY_MARKS,
  filterQuery,
  type PendingDeliveries,
  projectTypeLabel,
  spamReasonText,
  timelineLabel,
} from "@/lib/ops";
import { DeliveryBadges } from "./delivery-marks";
import { ChoiceField, inputClass } from "./forms";
import { PageLinks } from "./pager";
import { focusRing } from "./shell";
import { LocalTime } from "./time";
import { visibleText } from "@/lib/format";

const STATUS_STYLE: Record<BriefStatus, string> = {
  new: "bg-indigo-50 text-accent-strong ring-indigo-200",
  handled: "bg-emerald-50 text-success ring-emerald-200",
  archived: "bg-slate-100 text-muted ring-slate-200",
};

export function StatusBadge({ status }: { status: BriefStatus }) {
  return (
    <span
      className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${STATUS_STYLE[status]}`}
    >
      {status}
    </span>
  );
}

/** Whether any filter is set: then the filters start unfolded, so what narrows the list shows. */
export function filterIsSet(filter: BriefFilter): boolean {
  return filterQuery(filter).size > 0;
}

function DateField({
  id,
  name,
  label,
  value,
}: {
  id: string;
  name: string;
  label: string;
  value: string | null;
}) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-muted">
        {label}
      </label>
      {/* Text, not type=date: the browser's date field shows its own locale's order (mm/dd/yyyy),
          and the list, the URL and the CSV all say YYYY-MM-DD. */}
      <input
        id={id}
        name={name}
        type="text"
        inputMode="numeric"
        pattern="\d{4}-\d{2}-\d{2}"
        placeholder="YYYY-MM-DD"
        aria-describedby="filter-date-format"
        defaultValue={value ?? ""}
        className={`${inputClass} w-32`}
      />
    </div>
  );
}

/** The filters folded behind "Filters" (all but the search, which is in sight where there is room). */
function foldedSet(filter: BriefFilter): number {
  return filterQuery({ ...filter, q: null }).size;
}

/**
 * The list's filters, as one GET form (whatever is chosen ends up in the URL, and every field,
 * shown or folded, is sent with it, so a search keeps the other filters and the other way round).
 * From `md` the search is in sight above the list; the other filters fold behind a "Filters"
 * disclosure, unfolded whenever one of them is set. On a phone the search folds with them (the
 * list comes first) unless a search is set. The disclosure is a native `<details>`, so it opens
 * without JavaScript; the fields it folds sit beside it in the form, shown by CSS while it is open,
 * so that the search can stay in sight while they fold. `/` unfolds it and goes to the search.
 * `statuses` (with the delivery filter) is off for spam, which has no status and is never
 * sent.
 */
export function BriefFilters({
  action,
  filter,
  statuses = true,
}: {
  action: string;
  filter: BriefFilter;
  statuses?: boolean;
}) {
  const set = foldedSet(filter);
  // Shown while the disclosure is open, at any width.
  const whenOpen = "group-has-[details[open]]/filters:flex";
  return (
    <form
      action={action}
      method="get"
      role="search"
      aria-label="Find briefs"
      className="group/filters flex flex-col gap-2"
    >
      <div className="flex flex-wrap items-center gap-2">
        <details open={set > 0} data-filters className="group">
          <summary
            className={`inline-flex cursor-pointer list-none items-center gap-1.5 rounded border border-slate-300 bg-white px-2.5 py-1 text-sm font-medium text-ink hover:bg-slate-50 [&::-webkit-details-marker]:hidden ${focusRing}`}
          >
            Filters
            {set > 0 ? <span className="text-muted">({set} set)</span> : null}
            <span aria-hidden="true" className="text-muted group-open:rotate-180">
              {"\u25BE"}
            </span>
          </summary>
        </details>
        <div
          data-search
          className={`${filter.q ? "flex" : `hidden md:flex ${whenOpen}`} min-w-48 flex-1 items-center gap-2`}
        >
          <label htmlFor="filter-q" className="shrink-0 text-sm font-medium text-muted">
            Search
          </label>
          <input
            id="filter-q"
            name="q"
            type="search"
            defaultValue={filter.q ?? ""}
            placeholder="Name, email, company, reference or text"
            className={`${inputClass} min-w-0 flex-1`}
          />
          {/* The search's own button where the search stands alone; a phone finds with the filters' one. */}
          <button
            type="submit"
            className={`hidden rounded bg-accent px-3 py-1.5 text-sm font-semibold text-white hover:bg-accent-strong md:inline-block ${focusRing}`}
          >
            Search
          </button>
        </div>
      </div>
      <div
        className={`hidden flex-wrap items-end gap-2 rounded border border-slate-200 bg-white p-3 ${whenOpen}`}
      >
        {statuses ? (
          <ChoiceField
            id="filter-status"
            name="status"
            label="Status"
            value={filter.status}
            options={BRIEF_STATUSES}
          />
        ) : null}
        {statuses ? (
          <ChoiceField
            id="filter-delivery"
            name="delivery"
            label="Delivery"
            value={filter.delivery}
            options={DELIVERY_MARKS}
          />
        ) : null}
        <DateField id="filter-from" name="from" label="From" value={filter.from} />
        <DateField id="filter-to" name="to" label="To" value={filter.to} />
        <button
          type="submit"
          className={`rounded bg-accent px-3 py-1.5 text-sm font-semibold text-white hover:bg-accent-strong ${focusRing}`}
        >
          Find
        </button>
        <Link
          href={action}
          className={`rounded px-2 py-1.5 text-sm font-medium text-muted hover:text-ink ${focusRing}`}
        >
          Clear
        </Link>
        <p id="filter-date-format" className="w-full text-xs text-muted">
          Dates as YYYY-MM-DD, days in UTC, both ends included.
        </p>
      </div>
    </form>
  );
}

/** Counts by status, each a link to that status with the other filters kept. */
export function StatusCounts({
  action,
  filter,
  counts,
}: {
  action: string;
  filter: BriefFilter;
  counts: BriefPage["counts"];
}) {
  return (
    <ul aria-label="Briefs by status" className="flex flex-wrap gap-2 text-sm">
      {BRIEF_STATUSES.map((status) => {
        const query = filterQuery({ ...filter, status });
        return (
          <li key={status}>
            <Link
              href={`${action}?${query.toString()}`}
              aria-current={filter.status === status ? "true" : undefined}
              className={`inline-flex items-center gap-1.5 rounded border px-2 py-1 ${
                filter.status === status
                  ? "border-accent bg-white"
                  : "border-slate-200 bg-white hover:border-slate-300"
              } ${focusRing}`}
            >
              <StatusBadge status={status} />
              <span className="font-semibold tabular-nums text-ink">{counts[status]}</span>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * An address that may wrap only before its `@`, never inside its name or domain (a browser would
 * otherwise break it after a hyphen or, with `break-words`, anywhere).
 */
export function Address({ email }: { email: string }) {
  const at = email.lastIndexOf("@");
  if (at <= 0) return <span className="whitespace-nowrap">{email}</span>;
  return (
    <span>
      <span className="whitespace-nowrap">{email.slice(0, at)}</span>
      <wbr />
      <span className="whitespace-nowrap">{email.slice(at)}</span>
    </span>
  );
}

/**
 * The briefs as a dense list of links (`j`/`k` move through them, `Enter` opens one). Each row:
 * the sender, the time in the reader's zone, the company and address (whole, never cut), the
 * status (or, for spam, why it was caught), a mark when a delivery is retrying or failed, the
 * reference, what ops triage on first (the project type and budget, and from `md` the timeline),
 * and the description's start.
 */
export function BriefRows({
  briefs,
  query,
  openReference,
  empty,
  spam = false,
  pending,
}: {
  briefs: BriefSummary[];
  /** The references with a due or failed delivery record, for the rows' marks. */
  pending?: PendingDeliveries;
  /** The list's query, kept on every link so the brief page shows the same list. */
  query: string;
  openReference?: string;
  empty: string;
  /** Spam entries have no status: each shows why it was caught instead. */
  spam?: boolean;
}) {
  if (briefs.length === 0)
    return (
      <p className="rounded border border-slate-200 bg-white px-3 py-6 text-center text-sm text-muted">
        {empty}
      </p>
    );
  return (
    <ul className="divide-y divide-slate-200 overflow-hidden rounded border border-slate-200 bg-white">
      {briefs.map((brief) => (
        <li key={brief.reference}>
          <Link
            href={`/inbox/${brief.reference}${query ? `?${query}` : ""}`}
            data-brief-row={brief.reference}
            aria-current={brief.reference === openReference ? "page" : undefined}
            className={`block px-3 py-2 hover:bg-slate-50 focus:bg-indigo-50 focus-visible:outline focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-accent ${
              brief.reference === openReference ? "bg-indigo-50" : ""
            }`}
          >
            <span className="flex items-baseline justify-between gap-3">
              <span className="min-w-0 text-sm font-semibold text-ink">
                {visibleText(brief.name)}
                {brief.company ? (
                  <span className="font-normal text-muted"> · {visibleText(brief.company)}</span>
                ) : null}
              </span>
              <span className="shrink-0 text-xs tabular-nums text-muted">
                <LocalTime iso={brief.receivedAt} />
              </span>
            </span>
            <span className="mt-0.5 block text-sm text-muted">
              <Address email={brief.email} />
            </span>
            <span className="mt-0.5 flex flex-wrap items-center gap-x-2">
              {spam ? (
                <span
                  className="text-xs font-medium text-amber-900"
                  data-caught-by={brief.spam?.reason ?? "honeypot"}
                >
                  Caught by {spamReasonText(brief.spam ?? { reason: "honeypot" })}
                </span>
              ) : (
                <StatusBadge status={brief.status} />
              )}
              <DeliveryBadges reference={brief.reference} pending={pending} />
              <span className="font-mono text-xs text-muted">{brief.reference}</span>
              {brief.attachment ? <span className="text-xs text-muted">· attachment</span> : null}
            </span>
            <span className="mt-0.5 flex flex-wrap gap-x-2 text-xs text-ink" data-brief-choices>
              <span>{projectTypeLabel(brief.projectType)}</span>
              <span aria-hidden="true" className="text-muted">
                ·
              </span>
              <span>{budgetLabel(brief.budget)}</span>
              {/* The timeline only where the row has room: a phone keeps each row to a few lines. */}
              <span aria-hidden="true" className="hidden text-muted md:inline">
                ·
              </span>
              <span className="hidden md:inline">{timelineLabel(brief.timeline)}</span>
            </span>
            <span className="mt-0.5 block truncate text-sm text-muted">{visibleText(brief.description)}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Previous and next page, with the filters kept. */
export function Pager({
  action,
  filter,
  page,
  pages,
}: {
  action: string;
  filter: BriefFilter;
  page: number;
  pages: number;
}) {
  return <PageLinks action={action} query={filterQuery(filter)} page={page} pages={pages} />;
}
