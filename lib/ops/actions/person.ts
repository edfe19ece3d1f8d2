import { recordAudit } from "../audit";
import type { Acting, InboxStore } from "../deps";
import type { InboxRecordError } from "../errors";
import { collectPersonData, type PersonData } from "../person";

/**
 * Exports what the inbox holds about `email` (the right of access), for the web's download and
 * the ops tool's `person` alike. Recorded in the audit log as `export-person` by the address's
 * SHA-256 and the counts, never the address: the log outlives an erasure of it.
 */
export async function exportPerson(
  { store }: InboxStore,
  email: string,
  { actor, now = new Date(), onProblem }: Acting & { onProblem?: (problem: InboxRecordError) => void },
): Promise<PersonData> {
  const { data, plan } = await collectPersonData(store, email, { now, onProblem });
  const target = {
    emailSha256: plan.emailSha256,
    briefs: data.briefs.length,
    spam: data.spam.length,
    subscribers: data.subscriber === null ? 0 : 1,
  };
  await recordAudit(store, { actor, action: "export-person", target }, now);
  return data;
}
