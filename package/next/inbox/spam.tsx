import { BriefFilters, BriefRows, Pager } from "@/components/inbox/brief-list";
import { IndexCoverage } from "@/components/inbox/index-coverage";
import { InboxShell } from "@/components/inbox/shell";
import { countOf } from "@/lib/format";
import { filterQuery, parseFilter, searchBriefs } from "@/lib/ops";
import { pathWithQuery, requirePageSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";

type Query = Record<string, string | string[] | undefined>;

/**
 * /inbox/spam: what the spam filter caught, each with why; each opens with a "Not spam" button.
 * Spam has no status: no status filter, no status badges.
 */
export default async function SpamPage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  const { services, actor } = await requirePageSession(pathWithQuery("/inbox/spam", query), getServices);
  const filter = { ...parseFilter(query), status: null, delivery: null };
  const result = await searchBriefs(services.store, "spam", filter, { page: Number(query.page) || 1 });
  return (
    <InboxShell siteName={services.config.siteName} actor={actor} current="spam">
      <h1 className="text-xl font-bold tracking-tight text-ink">Spam</h1>
      <p className="mt-1 text-sm text-muted">
        Caught by the hidden honeypot field or a spam rule (a keyword or a sender domain): nobody was
        notified. Each says what caught it; open one to move it to the inbox.
      </p>
      <div className="mt-3 flex flex-col gap-3">
        <BriefFilters action="/inbox/spam" filter={filter} statuses={false} />
        <IndexCoverage coverage={result.coverage} />
        <p className="text-sm text-muted">{countOf(result.total, "caught entry", "caught entries")}</p>
        <BriefRows
          briefs={result.briefs}
          query={filterQuery(filter).toString()}
          empty="Nothing was caught."
          spam
        />
        <Pager action="/inbox/spam" filter={filter} page={result.page} pages={result.pages} />
      </div>
    </InboxShell>
  );
}
