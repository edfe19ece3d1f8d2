import { ApiError } from "../../http/errors";
import { recordAudit } from "../audit";
import type { Acting, NotifyingInbox } from "../deps";
import type { StoredBrief } from "../records";
import { type RedeliveryOptions, type RedeliveryResult, redeliverBrief } from "../redeliver";

/**
 * Sends one brief again through the channels that need it (see `redeliverBrief`) and records it
 * in the audit log. 404 `not_found` for spam, which is never redelivered.
 */
export async function redeliverOne(
  inbox: NotifyingInbox,
  brief: StoredBrief,
  { actor, now = new Date(), ...options }: Acting & RedeliveryOptions,
): Promise<RedeliveryResult> {
  if (brief.kind === "spam") throw new ApiError("not_found", "Spam is never redelivered.");
  const result = await redeliverBrief(inbox, brief, now, options);
  await recordAudit(inbox.store, { actor, action: "redeliver", target: brief.record.reference }, now);
  return result;
}
