import { validationFailed } from "../../http/errors";
import { recordAudit } from "../audit";
import type { Acting, InboxStore } from "../deps";
import { erase, type EraseResult, planErase } from "../erase";
import type { InboxRecordError } from "../errors";

/**
 * Erases every brief, spam entry and subscriber record of `email` once `confirm` repeats it (in
 * any case), and records the erasure in the audit log by the address's SHA-256 and the counts,
 * never the address. 422 `fields.confirm` when it does not repeat it: nothing is read or removed.
 */
export async function eraseAddress(
  { store }: InboxStore,
  { email, confirm }: { email: string; confirm: string },
  { actor, now = new Date(), onProblem }: Acting & { onProblem?: (problem: InboxRecordError) => void },
): Promise<EraseResult> {
  if (confirm.trim().toLowerCase() !== email.trim().toLowerCase()) {
    throw validationFailed({ confirm: "Type the same address again to confirm." });
  }
  const result = await erase(store, await planErase(store, email, { now, onProblem }));
  await recordAudit(store, { actor, action: "erase", target: { ...result } }, now);
  return result;
}
