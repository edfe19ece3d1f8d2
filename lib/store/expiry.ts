import type { ObjectInfo, ObjectStore, StoreCallOptions } from "./types";

/** Objects under `prefix` older than `maxAgeMs` (by the store's time of writing) are litter. */
export interface ExpiryRule {
  prefix: string;
  maxAgeMs: number;
}

export interface RemoveExpiredOptions extends StoreCallOptions {
  /** Only report what would be removed. */
  dryRun?: boolean;
  /** Called for each expired object as it is removed (or, with `dryRun`, found). */
  onExpired?: (object: ObjectInfo) => void | Promise<void>;
}

/**
 * Removes the objects each rule finds expired at `now`, for objects that are written once and
 * never changed (so their age is their time of writing). Everything is listed before anything is
 * deleted; every call runs under the caller's deadline (`signal`), and one stopped part-way has
 * only removed litter. Returns the objects removed (or, with `dryRun`, found).
 */
export async function removeExpired(
  store: ObjectStore,
  now: Date,
  rules: readonly ExpiryRule[],
  options: RemoveExpiredOptions = {},
): Promise<ObjectInfo[]> {
  const { dryRun, onExpired, ...call } = options;
  const expired: ObjectInfo[] = [];
  for (const { prefix, maxAgeMs } of rules) {
    for await (const object of store.list(prefix, call)) {
      if (now.getTime() - object.uploadedAt.getTime() > maxAgeMs) expired.push(object);
    }
  }
  for (const object of expired) {
    if (!dryRun) await store.delete(object.path, call);
    await onExpired?.(object);
  }
  return expired;
}
