import type { ObjectStore, StoreCallOptions } from "../store";
import { DUE_PREFIX, FAILED_PREFIX } from "./records";

/**
 * How many deliveries are pending, for `GET /api/health`: the due records (`retrying`) and the
 * failed ones (`failed`), counted from the two folders' listings (no record read), and kept for a
 * few seconds so that a health check every second does not list the store each time.
 */

export interface PendingCounts {
  retrying: number;
  failed: number;
}

/** How long a count is answered from memory. */
export const PENDING_COUNTS_TTL_MS = 5_000;

interface Cached {
  until: number;
  counts: Promise<PendingCounts>;
}

// Per store, so that tests (and the ops tool) with stores of their own never share a count.
const cache = new WeakMap<ObjectStore, Cached>();

async function count(store: ObjectStore, prefix: string, options: StoreCallOptions): Promise<number> {
  let total = 0;
  for await (const info of store.list(prefix, options)) if (info.path.endsWith(".json")) total++;
  return total;
}

async function listCounts(store: ObjectStore, options: StoreCallOptions): Promise<PendingCounts> {
  const [retrying, failed] = await Promise.all([
    count(store, DUE_PREFIX, options),
    count(store, FAILED_PREFIX, options),
  ]);
  return { retrying, failed };
}

/**
 * The due and failed records' counts, at most `PENDING_COUNTS_TTL_MS` old. Calls that arrive
 * while a listing runs share it; a listing that fails is not kept (the next call lists again).
 */
export function pendingCounts(
  store: ObjectStore,
  options: StoreCallOptions = {},
  now = Date.now(),
): Promise<PendingCounts> {
  const cached = cache.get(store);
  if (cached && cached.until > now) return cached.counts;
  const counts = listCounts(store, options);
  cache.set(store, { until: now + PENDING_COUNTS_TTL_MS, counts });
  counts.catch(() => {
    if (cache.get(store)?.counts === counts) cache.delete(store);
  });
  return counts;
}
