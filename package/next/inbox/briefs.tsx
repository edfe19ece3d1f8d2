import { BriefFilters, BriefRows, filterIsSet, Pager, StatusCounts } from "@/components/inbox/brief-list";
import { DeliveryCounts } from "@/components/inbox/delivery-marks";
import { IndexCoverage } from "@/components/inbox/index-coverage";
import { InboxShell } from "@/components/inbox/shell";
import { countOf } from "@/lib/format";
import { filterQuery, parseFilter, searchBriefs } from "@/lib/ops";
import { pathWithQuery, requirePageSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";

type Query = Record<string, string | string[] | undefined>;

/** /inbox: the briefs, newest first, 50 a page, with the filters and the search in the URL. */
export default async function InboxPage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  const { services, actor } = await requirePageSession(pathWithQuery("/inbox", query), getServices);
  const filter = parseFilter(query);
  const result = await searchBriefs(services.store, "briefs", filter, { page: Number(query.page) || 1 });
  const kept = filterQuery(filter);
  if (result.page > 1) kept.set("page", String(result.page));
  return (
    <InboxShell siteName={services.config.siteName} actor={actor} current="inbox">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-xl font-bold tracking-tight text-ink">Briefs</h1>
        {/* A plain link, not next/link: the router would first fetch the route for a page (one
            audited export) and then load it for real (a second one). */}
        <a
          href={`/inbox/export.csv${filterQuery(filter).size > 0 ? `?${filterQuery(filter).toString()}` : ""}`}
          className="text-sm font-medium text-accent hover:text-accent-strong focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
        >
          Export these as CSV
        </a>
      </div>
      <div className="mt-3 flex flex-col gap-3">
        <BriefFilters action="/inbox" filter={filter} />
        <IndexCoverage coverage={result.coverage} />
        <div className="flex flex-wrap items-center justify-between gap-2">
          <StatusCounts action="/inbox" filter={filter} counts={result.counts} />
          <p className="text-sm text-muted" aria-live="polite">
            {countOf(result.total, "brief")}
            {filterIsSet(filter) ? (result.total === 1 ? " matches" : " match") : ""}
          </p>
        </div>
        <DeliveryCounts action="/inbox" filter={filter} counts={result.deliveryCounts} />
        <BriefRows
          briefs={result.briefs}
          query={kept.toString()}
          empty="No brief matches."
          pending={result.pending}
        />
        <Pager action="/inbox" filter={filter} page={result.page} pages={result.pages} />
      </div>
    </InboxShell>
  );
}
