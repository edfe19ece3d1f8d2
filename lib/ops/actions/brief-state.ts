import { ApiError, validationFailed } from "../../http/errors";
import { parseReference } from "../../reference";
import { recordAudit } from "../audit";
import type { Acting, InboxStore } from "../deps";
import { indexStateChange } from "../index-update";
import { findBrief } from "../find";
import type { StoredBrief } from "../records";
import { addNote, BRIEF_STATUSES, type BriefState, isBriefStatus, noteProblem, setStatus } from "../state";

/**
 * The brief a reference names (typed in any case, with or without dashes), real or spam; 404
 * `not_found` when there is none: an odd reference never reaches the store.
 */
export async function requireBrief(
  { store }: InboxStore,
  reference: string,
  now = new Date(),
): Promise<StoredBrief> {
  const canonical = parseReference(reference);
  const brief = canonical === null ? null : await findBrief(store, canonical, now);
  if (!brief) throw new ApiError("not_found", "There is no brief with this reference.");
  return brief;
}

/**
 * Sets a brief's status, in `state.json` and then in the list's index, and records it in the audit
 * log (a save of the status it already has writes no state, but is audited all the same). 422 `fields.status` for a status that is not one.
 */
export async function changeStatus(
  { store }: InboxStore,
  brief: StoredBrief,
  status: unknown,
  { actor, now = new Date() }: Acting,
): Promise<{ before: BriefState; state: BriefState }> {
  if (!isBriefStatus(status)) throw validationFailed({ status: `Choose ${BRIEF_STATUSES.join(", ")}.` });
  const state = await setStatus(store, brief.folder, status, actor, now);
  if (state.status !== brief.state.status || state.history.length !== brief.state.history.length) {
    await indexStateChange(store, brief, state);
  }
  await recordAudit(
    store,
    { actor, action: "status", target: { reference: brief.record.reference, status } },
    now,
  );
  return { before: brief.state, state };
}

/** Adds a note to a brief and records it in the audit log. 422 `fields.text` for an empty or overlong note. */
export async function addBriefNote(
  { store }: InboxStore,
  brief: StoredBrief,
  text: string,
  { actor, now = new Date() }: Acting,
): Promise<BriefState> {
  const problem = noteProblem(text);
  if (problem) throw validationFailed({ text: problem });
  const state = await addNote(store, brief.folder, text, actor, now);
  await indexStateChange(store, brief, state);
  await recordAudit(store, { actor, action: "note", target: brief.record.reference }, now);
  return state;
}
