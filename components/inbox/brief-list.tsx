import Link from "next/link";
import {
  BRIEF_STATUSES,
  type BriefFilter,
  type BriefPage,
  type BriefStatus,
  type BriefSummary,
  filterQuery,
  spamReasonText,
} from "@/lib/ops";
import { focusRing } from "./shell";

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

const inputClass =
  "rounded border border-slate-300 bg-white px-2 py-1.5 text-sm text-ink focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30";

/** The list's filters, as a GET form: whatever is chosen ends up in the URL. */
export function BriefFilters({ action, filter }: { action: string; filter: BriefFilter }) {
  return (
    <form
      action={action}
      method="get"
      role="search"
      aria-label="Find briefs"
      className="flex flex-wrap items-end gap-2"
    >
      <div className="flex min-w-48 flex-1 flex-col gap-1">
        <label htmlFor="filter-q" className="text-xs font-medium text-muted">
          Search
        </label>
        <input
          id="filter-q"
          name="q"
          type="search"
          defaultValue={filter.q ?? ""}
          placeholder="Name, email, company, reference or text"
          className={inputClass}
        />
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-status" className="text-xs font-medium text-muted">
          Status
        </label>
        <select id="filter-status" name="status" defaultValue={filter.status ?? ""} className={inputClass}>
          <option value="">Any</option>
          {BRIEF_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-from" className="text-xs font-medium text-muted">
          From
        </label>
        <input
          id="filter-from"
          name="from"
          type="date"
          defaultValue={filter.from ?? ""}
          className={inputClass}
        />
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-to" className="text-xs font-medium text-muted">
          To
        </label>
        <input id="filter-to" name="to" type="date" defaultValue={filter.to ?? ""} className={inputClass} />
      </div>
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

function received(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/** The briefs as a dense list of links (`j`/`k` move through them, `Enter` opens one). */
export function BriefRows({
  briefs,
  query,
  openReference,
  empty,
}: {
  briefs: BriefSummary[];
  /** The list's query, kept on every link so the brief page shows the same list. */
  query: string;
  openReference?: string;
  empty: string;
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
              <span className="truncate text-sm font-semibold text-ink">
                {brief.name}
                {brief.company ? <span className="font-normal text-muted"> · {brief.company}</span> : null}
              </span>
              <span className="shrink-0 text-xs tabular-nums text-muted">{received(brief.receivedAt)}</span>
            </span>
            <span className="mt-0.5 flex items-center gap-2">
              <StatusBadge status={brief.status} />
              <span className="font-mono text-xs text-muted">{brief.reference}</span>
              {brief.attachment ? <span className="text-xs text-muted">· attachment</span> : null}
              {brief.spam ? (
                <span className="truncate text-xs text-amber-900" data-caught-by={brief.spam.reason}>
                  · caught by {spamReasonText(brief.spam)}
                </span>
              ) : null}
            </span>
            <span className="mt-0.5 block truncate text-sm text-muted">{brief.description}</span>
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
  if (pages <= 1) return null;
  const href = (target: number) => {
    const query = filterQuery(filter);
    query.set("page", String(target));
    return `${action}?${query.toString()}`;
  };
  const link = `rounded border border-slate-300 bg-white px-2.5 py-1 font-medium text-ink hover:bg-slate-50 ${focusRing}`;
  return (
    <nav aria-label="Pages" className="mt-3 flex items-center justify-between text-sm">
      {page > 1 ? (
        <Link href={href(page - 1)} className={link}>
          Newer
        </Link>
      ) : (
        <span />
      )}
      <span className="text-muted">
        Page {page} of {pages}
      </span>
      {page < pages ? (
        <Link href={href(page + 1)} className={link}>
          Older
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}
