import { recordAudit } from "../audit";
import type { Acting, InboxStore } from "../deps";
import type { InboxRecordError } from "../errors";
import { readSubscriberIndex, type SubscriberSummary } from "../subscriber-index";
import { type SubscriberFilter, subscriberMatches } from "../subscriber-list";

/**
 * The subscribers an export of the list's filters holds (every page), newest first; recorded in
 * the audit log first as `export-subscribers` with the filters: a list of addresses leaving the
 * inbox is worth a line, like an export of briefs.
 */
export async function exportSubscribers(
  { store }: InboxStore,
  filter: SubscriberFilter,
  { actor, now = new Date(), onProblem }: Acting & { onProblem?: (problem: InboxRecordError) => void },
): Promise<SubscriberSummary[]> {
  const all = await readSubscriberIndex(store, { now, onProblem });
  const shown = all.filter((summary) => subscriberMatches(summary, filter));
  await recordAudit(
    store,
    {
      actor,
      action: "export-subscribers",
      target: { status: filter.status, topic: filter.topic, count: shown.length },
    },
    now,
  );
  return shown;
}
