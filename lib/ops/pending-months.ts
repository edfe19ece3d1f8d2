import { pendingFolders } from "../deliveries";
import type { ObjectStore } from "../store";
import { placeOf } from "./index-update";

/**
 * Where pending briefs are: the month of each reference's folder, from its due or failed records.
 * The status filter needs the status of each pending brief for its delivery counts; the records
 * name the folder, so it reads those months only, not every month back to the oldest pending
 * brief (a failed record stays until ops retry it, however old).
 */

/** More references than this: reading the records costs about what reading the months does. */
export const PENDING_LOOKUP_LIMIT = 50;

/** A brief's folder as the records name it: `briefs/YYYY/MM/DD/<reference>`. */
const BRIEF_FOLDER = /^briefs\/\d{4}\/\d{2}\/\d{2}\/[^/]+$/;

/**
 * The months holding `references` (briefs with a due or failed record), or `null` when one cannot
 * be placed (its records gone meanwhile, unreadable, or naming no brief's folder): then only reading
 * the months finds it.
 */
export async function pendingMonths(
  store: ObjectStore,
  references: ReadonlySet<string>,
): Promise<Set<number> | null> {
  const folders = await pendingFolders(store, references);
  const months = new Set<number>();
  for (const reference of references) {
    const folder = folders.get(reference);
    if (folder === undefined || !BRIEF_FOLDER.test(folder)) return null;
    months.add(placeOf(folder).month);
  }
  return months;
}
