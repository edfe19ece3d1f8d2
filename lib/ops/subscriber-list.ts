import { NEWSLETTER_TOPICS, type Topic } from "../schemas/newsletter";
import { SUBSCRIBER_STATUSES, type SubscriberRecord, type SubscriberStatus } from "../newsletter/subscribers";
import { csvRecord } from "./csv";
import { PAGE_SIZE, pageWithin } from "./list-filter";
import type { SubscriberSummary } from "./subscriber-index";

/**
 * The subscribers' list as the web inbox shows it (filters in the URL, 50 a page, counts) and its
 * CSV, which is the ops tool's `subscribers --csv`: one column list and one row function for both.
 */

export interface SubscriberFilter {
  status: SubscriberStatus | null;
  topic: Topic | null;
}

export const NO_SUBSCRIBER_FILTER: SubscriberFilter = { status: null, topic: null };

const first = (value: unknown) => (Array.isArray(value) ? value[0] : value);

/** The filters from a query (`?status=confirmed&topic=AI`); anything else reads as no filter. */
export function parseSubscriberFilter(query: Record<string, unknown>): SubscriberFilter {
  const status = first(query.status);
  const topic = first(query.topic);
  return {
    status: SUBSCRIBER_STATUSES.includes(status as SubscriberStatus) ? (status as SubscriberStatus) : null,
    topic: NEWSLETTER_TOPICS.includes(topic as Topic) ? (topic as Topic) : null,
  };
}

/** The filters that are set, as a query, in one order (so links and the export agree). */
export function subscriberFilterQuery(filter: SubscriberFilter): URLSearchParams {
  const query = new URLSearchParams();
  if (filter.status) query.set("status", filter.status);
  if (filter.topic) query.set("topic", filter.topic);
  return query;
}

export function subscriberMatches(summary: SubscriberSummary, filter: SubscriberFilter): boolean {
  return (
    (filter.status === null || summary.status === filter.status) &&
    (filter.topic === null || summary.topics.includes(filter.topic))
  );
}

export interface SubscriberPage {
  subscribers: SubscriberSummary[];
  /** How many match the filters. */
  total: number;
  page: number;
  pages: number;
  /** Every subscriber by status, whatever the filters. */
  statusCounts: Record<SubscriberStatus, number>;
  /** Confirmed subscribers per topic (those who get the newsletter), whatever the filters. */
  topicCounts: Record<Topic, number>;
}

/** One page (1-based, kept within the pages) of `all` (newest first) under `filter`, with the counts. */
export function subscriberPage(
  all: readonly SubscriberSummary[],
  filter: SubscriberFilter,
  page = 1,
): SubscriberPage {
  const statusCounts = Object.fromEntries(SUBSCRIBER_STATUSES.map((status) => [status, 0])) as Record<
    SubscriberStatus,
    number
  >;
  const topicCounts = Object.fromEntries(NEWSLETTER_TOPICS.map((topic) => [topic, 0])) as Record<
    Topic,
    number
  >;
  const matching: SubscriberSummary[] = [];
  for (const summary of all) {
    statusCounts[summary.status]++;
    if (summary.status === "confirmed") for (const topic of summary.topics) topicCounts[topic]++;
    if (subscriberMatches(summary, filter)) matching.push(summary);
  }
  const within = pageWithin(page, matching.length, PAGE_SIZE);
  const start = (within.page - 1) * PAGE_SIZE;
  return {
    subscribers: matching.slice(start, start + PAGE_SIZE),
    total: matching.length,
    ...within,
    statusCounts,
    topicCounts,
  };
}

/** The fields a CSV row holds: a stored record (the ops tool) or an index summary (the web) alike. */
export type SubscriberCsvFields = Pick<
  SubscriberRecord,
  | "email"
  | "status"
  | "topics"
  | "subscribedAt"
  | "updatedAt"
  | "confirmedAt"
  | "unsubscribedAt"
  | "verification"
>;

export const SUBSCRIBER_COLUMNS: readonly (keyof SubscriberCsvFields)[] = [
  "email",
  "status",
  "topics",
  "subscribedAt",
  "updatedAt",
  "confirmedAt",
  "unsubscribedAt",
  "verification",
];

export const SUBSCRIBERS_CSV_HEADER = csvRecord(SUBSCRIBER_COLUMNS);

/** A subscriber as a CSV row, in `SUBSCRIBER_COLUMNS`' order (topics separated by `; `). */
export function subscriberCsvRow(subscriber: SubscriberCsvFields): (string | null)[] {
  return [
    subscriber.email,
    subscriber.status,
    subscriber.topics.join("; "),
    subscriber.subscribedAt,
    subscriber.updatedAt,
    subscriber.confirmedAt,
    subscriber.unsubscribedAt,
    subscriber.verification ?? "off",
  ];
}

export function subscriberCsvRecord(subscriber: SubscriberCsvFields): string {
  return csvRecord(subscriberCsvRow(subscriber));
}
