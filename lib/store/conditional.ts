import { type ObjectStore, type StoreCallOptions, StoreUnavailableError } from "./types";

/** What `createIfAbsent` found. */
export interface CreateOutcome {
  /** The object at the path is this call's own. */
  created: boolean;
  /** When it is not: the bytes stored there instead (`null` when that was removed meanwhile). */
  existing: Uint8Array | null;
}

/**
 * Creates `path` holding `body` only if nothing is there, and says whether the object stored
 * there now is this call's own. A remote store's client may retry a create whose answer was
 * lost, and the retry meets the object the first attempt made: that is told apart from another
 * writer's object by its bytes, so `body` must hold something unique to the caller (a brief's
 * reference, a random revision).
 */
export async function createIfAbsent(
  store: ObjectStore,
  path: string,
  body: string,
  contentType: string,
  options: StoreCallOptions = {},
): Promise<CreateOutcome> {
  if (await store.create(path, body, contentType, options)) return { created: true, existing: null };
  const existing = await store.get(path, options);
  if (existing !== null && Buffer.from(body, "utf8").equals(existing))
    return { created: true, existing: null };
  return { created: false, existing };
}

/**
 * Replaces `path` with `body` only if it is still at `version`, and says whether the object stored
 * there now is this call's own write. Like `createIfAbsent`: a remote store's client may retry a
 * conditional write whose answer was lost, and the retry finds the object changed, by itself. That
 * is told apart from another writer's change by the bytes, so `body` must hold something unique
 * to the caller (a random revision).
 */
export async function replaceIfUnchanged(
  store: ObjectStore,
  path: string,
  version: string,
  body: string,
  contentType: string,
  options: StoreCallOptions = {},
): Promise<boolean> {
  if (await store.putIfVersion(path, body, contentType, version, options)) return true;
  const now = await store.get(path, options);
  return now !== null && Buffer.from(body, "utf8").equals(now);
}

/** What `change` decides about the object as it read it. */
export interface Change<T> {
  /** The new body (holding something unique, such as a random revision); absent: leave it as it is. */
  write?: string;
  /** What `updateObject` answers once this decision has been applied. */
  result: T;
}

/** Tries before giving up: each lost race means another writer's change landed, so this is far more than a burst of them. */
const MAX_ATTEMPTS = 100;

/**
 * A read-modify-write that loses no concurrent change: reads the object (`null` when there is
 * none), asks `change` what to make of it, and writes that only if nobody wrote in between, with a
 * conditional write (or a create-if-absent when there was nothing). When someone did, it reads
 * again and asks again, so `change` sees every other writer's result and may run several times:
 * it must only compute, never act. Answers the `result` of the decision that was applied. Every
 * call is bounded by `options`, as any store call.
 *
 * `likelyNew`: most calls find no object (a new subscriber), so the first attempt creates it
 * without reading first, a store call fewer; should the object exist, the create writes nothing and
 * the read-modify-write goes on as usual.
 */
export async function updateObject<T>(
  store: ObjectStore,
  path: string,
  contentType: string,
  change: (current: Uint8Array | null) => Change<T>,
  options: StoreCallOptions & { likelyNew?: boolean } = {},
): Promise<T> {
  const { likelyNew = false, ...callOptions } = options;
  if (likelyNew) {
    const decision = change(null);
    if (decision.write === undefined) return decision.result;
    const { created } = await createIfAbsent(store, path, decision.write, contentType, callOptions);
    if (created) return decision.result;
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await store.getVersioned(path, callOptions);
    const decision = change(current?.bytes ?? null);
    if (decision.write === undefined) return decision.result;
    const written = current
      ? await replaceIfUnchanged(store, path, current.version, decision.write, contentType, callOptions)
      : (await createIfAbsent(store, path, decision.write, contentType, callOptions)).created;
    if (written) return decision.result;
  }
  throw new StoreUnavailableError(`${path} kept changing: gave up after ${MAX_ATTEMPTS} attempts`);
}
