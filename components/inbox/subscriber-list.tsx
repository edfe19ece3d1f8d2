import Link from "next/link";
import {
  type SubscriberFilter,
  subscriberFilterQuery,
  type SubscriberPage,
  type SubscriberSummary,
} from "@/lib/ops";
import { SUBSCRIBER_STATUSES, type SubscriberStatus } from "@/lib/newsletter/subscribers";
import { NEWSLETTER_TOPICS } from "@/lib/schemas/newsletter";
import { Address } from "./brief-list";
import { ChoiceField } from "./forms";
import { focusRing } from "./shell";
import { LocalTime } from "./time";

const ACTION = "/inbox/subscribers";

const STATUS_STYLE: Record<SubscriberStatus, string> = {
  confirmed: "bg-emerald-50 text-success ring-emerald-200",
  pending: "bg-amber-50 text-amber-900 ring-amber-200",
  unsubscribed: "bg-slate-100 text-muted ring-slate-200",
};

function SubscriberStatusBadge({ status }: { status: SubscriberStatus }) {
  return (
    <span
      className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${STATUS_STYLE[status]}`}
    >
      {status}
    </span>
  );
}

const href = (filter: SubscriberFilter) => {
  const query = subscriberFilterQuery(filter).toString();
  return query ? `${ACTION}?${query}` : ACTION;
};

/** The filters as a GET form: whatever is chosen ends up in the URL, with or without JavaScript. */
export function SubscriberFilters({ filter }: { filter: SubscriberFilter }) {
  return (
    <form
      action={ACTION}
      method="get"
      aria-label="Filter subscribers"
      className="flex flex-wrap items-end gap-2 rounded border border-slate-200 bg-white p-3"
    >
      <ChoiceField
        id="subscriber-status"
        name="status"
        label="Status"
        value={filter.status}
        options={SUBSCRIBER_STATUSES}
      />
      <ChoiceField
        id="subscriber-topic"
        name="topic"
        label="Topic"
        value={filter.topic}
        options={NEWSLETTER_TOPICS}
      />
      <button
        type="submit"
        className={`rounded bg-accent px-3 py-1.5 text-sm font-semibold text-white hover:bg-accent-strong ${focusRing}`}
      >
        Show
      </button>
      <Link
        href={ACTION}
        className={`rounded px-2 py-1.5 text-sm font-medium text-muted hover:text-ink ${focusRing}`}
      >
        Clear
      </Link>
    </form>
  );
}

const countLink = (current: boolean) =>
  `inline-flex items-center gap-1.5 rounded border px-2 py-1 ${
    current ? "border-accent bg-white" : "border-slate-200 bg-white hover:border-slate-300"
  } ${focusRing}`;

/** Everyone by status, each a link to that status with the topic kept. */
export function SubscriberStatusCounts({
  filter,
  counts,
}: {
  filter: SubscriberFilter;
  counts: SubscriberPage["statusCounts"];
}) {
  return (
    <ul aria-label="Subscribers by status" className="flex flex-wrap gap-2 text-sm">
      {SUBSCRIBER_STATUSES.map((status) => (
        <li key={status}>
          <Link
            href={href({ ...filter, status })}
            aria-current={filter.status === status ? "true" : undefined}
            className={countLink(filter.status === status)}
          >
            <SubscriberStatusBadge status={status} />{" "}
            <span className="font-semibold tabular-nums text-ink">{counts[status]}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/**
 * Confirmed subscribers per topic (who would get that topic's newsletter), each a link to them:
 * what a hosted newsletter tool shows first.
 */
export function TopicCounts({
  filter,
  counts,
}: {
  filter: SubscriberFilter;
  counts: SubscriberPage["topicCounts"];
}) {
  return (
    <section aria-labelledby="topic-counts" className="rounded border border-slate-200 bg-white p-3">
      <h2 id="topic-counts" className="text-sm font-semibold text-ink">
        Confirmed subscribers by topic
      </h2>
      <ul className="mt-2 flex flex-wrap gap-2 text-sm">
        {NEWSLETTER_TOPICS.map((topic) => {
          const current = filter.status === "confirmed" && filter.topic === topic;
          return (
            <li key={topic}>
              <Link
                href={href({ status: "confirmed", topic })}
                aria-current={current ? "true" : undefined}
                data-topic-count={topic}
                className={countLink(current)}
              >
                <span className="text-ink">{topic}</span>{" "}
                <span className="font-semibold tabular-nums text-ink">{counts[topic]}</span>
              </Link>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

const SITE_TEXT: Record<string, string> = {
  "same-origin": "from this site",
  "cross-site": "sent from another site",
  unknown: "origin unknown",
};

/** How consent was given: single or double opt-in, the form's page, where the request came from. */
function Consent({ consent }: { consent: SubscriberSummary["consent"] }) {
  if (consent === null) return <span>Consent not recorded (subscribed before it was)</span>;
  return (
    <span>
      {consent.method === "double" ? "Double opt-in" : "Single opt-in"}
      {consent.site ? `, ${SITE_TEXT[consent.site] ?? consent.site}` : ""}
      {consent.page ? (
        <>
          , page <span className="break-all font-mono">{consent.page}</span>
        </>
      ) : null}
    </span>
  );
}

/** The subscribers as a list (a table of seven columns does not fit a phone), each with a link to the person's data. */
export function SubscriberRows({ subscribers }: { subscribers: SubscriberSummary[] }) {
  if (subscribers.length === 0)
    return (
      <p className="rounded border border-slate-200 bg-white px-3 py-6 text-center text-sm text-muted">
        No subscriber matches.
      </p>
    );
  return (
    <ul
      aria-label="Subscribers"
      className="divide-y divide-slate-200 rounded border border-slate-200 bg-white"
    >
      {subscribers.map((subscriber) => (
        <li key={subscriber.id} className="px-3 py-2 text-sm" data-subscriber={subscriber.email}>
          <p className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
            <span className="min-w-0 font-semibold text-ink">
              <Address email={subscriber.email} />
            </span>
            <SubscriberStatusBadge status={subscriber.status} />
          </p>
          <p className="mt-0.5 text-muted">
            Topics: <span className="text-ink">{subscriber.topics.join(", ") || "none chosen"}</span>
          </p>
          <p className="mt-0.5 text-xs text-muted">
            Subscribed <LocalTime iso={subscriber.subscribedAt} />
            {subscriber.updatedAt !== subscriber.subscribedAt ? (
              <>
                {" "}
                · changed <LocalTime iso={subscriber.updatedAt} />
              </>
            ) : null}
          </p>
          <p className="mt-0.5 text-xs text-muted">
            <Consent consent={subscriber.consent} />
          </p>
          <p className="mt-1">
            <Link
              href={`/inbox/erase?subscriber=${subscriber.id}`}
              prefetch={false}
              className={`text-xs font-medium text-accent hover:text-accent-strong ${focusRing}`}
            >
              Person&apos;s data<span className="sr-only"> for {subscriber.email}</span>
            </Link>
          </p>
        </li>
      ))}
    </ul>
  );
}
