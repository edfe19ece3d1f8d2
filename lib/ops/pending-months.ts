import { DUE_PREFIX, FAILED_PREFIX } from "../deliveries";
import type { ObjectStore } from "../store";
import { mapLimit, monthNumber } from "./reader";

/**
 * Where pending briefs are: the month of each reference's folder, from its due or failed records.
 * The status filter needs the status of each pending brief for its delivery counts; the records
 * name the folder, so it reads those months only, not every month back to the oldest pending
 * brief (a failed record stays until ops retry it, however old).
 */

/** More references than this: reading the records costs about what reading the months does. */
export const PENDING_LOOKUP_LIMIT = 50;

/** Records read at once: enough to hide a remote store's latency. */
const READ_CONCURRENCY = 8;

const BRIEF_MONTH = /^briefs\/(\d{4})\/(\d{2})\/\d{2}\/[^/]+$/;

function monthOfRecord(bytes: Uint8Array | null, reference: string): number | null {
  if (bytes === null) return null;
  try {
    const record = JSON.parse(Buffer.from(bytes).toString("utf8")) as {
      reference?: unknown;
      folder?: unknown;
    };
    const match = typeof record.folder === "string" ? BRIEF_MONTH.exec(record.folder) : null;
    if (record.reference !== reference || !match) return null;
    return monthNumber(Number(match[1]), Number(match[2]));
  } catch {
    return null;
  }
}

/**
 * The months holding `references` (briefs with a due or failed record), or `null` when one cannot
 * be placed (its records gone meanwhile, or unreadable): then only reading the months finds it.
 */
export async function pendingMonths(
  store: ObjectStore,
  references: ReadonlySet<string>,
): Promise<Set<number> | null> {
  const pathOf = new Map<string, string>();
  for (const prefix of [DUE_PREFIX, FAILED_PREFIX]) {
    for await (const info of store.list(prefix)) {
      const reference = info.path.slice(prefix.length).split(".")[0] ?? "";
      if (references.has(reference) && !pathOf.has(reference)) pathOf.set(reference, info.path);
    }
  }
  if (pathOf.size < references.size) return null;
  const months = await mapLimit([...pathOf], READ_CONCURRENCY, async ([reference, path]) =>
    monthOfRecord(await store.get(path), reference),
  );
  return months.includes(null) ? null : new Set(months as number[]);
}
