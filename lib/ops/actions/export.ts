import { recordAudit } from "../audit";
import type { Acting, InboxStore } from "../deps";
import type { InboxRecordError } from "../errors";
import type { StoredBrief } from "../records";
import type { BriefFilter } from "../list-filter";
import { filteredBriefs } from "../search";

/**
 * The briefs an export of the list's filters holds, newest first, read as they are iterated; the
 * export is recorded in the audit log first. The search text may be someone's address: the log
 * says a search was made, never its text, so erasing an address leaves nothing of it here either.
 */
export async function exportBriefs(
  { store }: InboxStore,
  filter: BriefFilter,
  { actor, now = new Date(), onProblem }: Acting & { onProblem?: (problem: InboxRecordError) => void },
): Promise<AsyncGenerator<StoredBrief>> {
  const { status, from, to, q, delivery } = filter;
  const search = q === null ? null : "not recorded";
  // `delivery` only when set: the entries of exports without it read as they always have.
  const target = { status, from, to, search, ...(delivery === null ? {} : { delivery }) };
  await recordAudit(store, { actor, action: "export", target }, now);
  return filteredBriefs(store, "briefs", filter, { onProblem });
}
