import { PageLinks } from "@/components/inbox/pager";
import { focusRing, InboxShell } from "@/components/inbox/shell";
import {
  SubscriberFilters,
  SubscriberRows,
  SubscriberStatusCounts,
  TopicCounts,
} from "@/components/inbox/subscriber-list";
import { countOf } from "@/lib/format";
import { parseSubscriberFilter, readSubscriberIndex, subscriberFilterQuery, subscriberPage } from "@/lib/ops";
import { pathWithQuery, requirePageSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";

type Query = Record<string, string | string[] | undefined>;

/**
 * /inbox/subscribers: the newsletter's subscribers, newest first, 50 a page, filtered by status
 * and topic (in the URL), with the confirmed ones counted per topic, and their CSV: what ops import
 * into the service that sends the newsletter, without a terminal.
 */
export default async function SubscribersPage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  const { services, actor } = await requirePageSession(
    pathWithQuery("/inbox/subscribers", query),
    getServices,
  );
  const filter = parseSubscriberFilter(query);
  const all = await readSubscriberIndex(services.store, {
    onProblem: (problem) => console.warn(`[ops] subscriber skipped: ${problem.message}`),
  });
  const result = subscriberPage(all, filter, Number(query.page) || 1);
  const kept = subscriberFilterQuery(filter);
  const filtered = kept.size > 0;
  return (
    <InboxShell siteName={services.config.siteName} actor={actor} current="subscribers">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-xl font-bold tracking-tight text-ink">Subscribers</h1>
        {/* A plain link, not next/link: the router would first fetch the route for a page (one
            audited export) and then load it for real (a second one). */}
        <a
          href={`/inbox/subscribers/export.csv${filtered ? `?${kept.toString()}` : ""}`}
          className={`text-sm font-medium text-accent hover:text-accent-strong ${focusRing}`}
        >
          Export CSV
        </a>
      </div>
      <p className="mt-1 max-w-2xl text-sm text-muted">
        The newsletter&apos;s subscribers, newest first. The CSV holds every subscriber the filters show (all
        pages), in the columns of <code>npm run inbox -- subscribers --csv</code>; to import into an email
        service, filter on <em>confirmed</em> first.
      </p>
      <div className="mt-3 flex flex-col gap-3">
        <SubscriberFilters filter={filter} />
        <TopicCounts filter={filter} counts={result.topicCounts} />
        <div className="flex flex-wrap items-center justify-between gap-2">
          <SubscriberStatusCounts filter={filter} counts={result.statusCounts} />
          <p className="text-sm text-muted" aria-live="polite">
            {countOf(result.total, "subscriber")}
            {filtered ? (result.total === 1 ? " matches" : " match") : ""}
          </p>
        </div>
        <SubscriberRows subscribers={result.subscribers} />
        <PageLinks action="/inbox/subscribers" query={kept} page={result.page} pages={result.pages} />
      </div>
    </InboxShell>
  );
}
