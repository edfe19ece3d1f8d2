import { createHash } from "node:crypto";
import { ApiError } from "../http/errors";
import { type ObjectStore, StoreUnavailableError } from "../inbox";
import type { Subscription, Topic } from "../schemas/newsletter";

/** What a subscriber's object holds. */
export interface SubscriberRecord {
  /** The address as first given (trimmed); later requests in another case do not change it. */
  email: string;
  topics: Topic[];
  /** ISO 8601, UTC. */
  subscribedAt: string;
  /** When the topics last changed; equal to `subscribedAt` until then. */
  updatedAt: string;
}

export type SubscribeOutcome = "subscribed" | "already-subscribed";

/** Addresses are one subscriber whatever their case: `Ada@Example.com` is `ada@example.com`. */
export function subscriberPath(email: string): string {
  const key = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  return `newsletter/subscribers/${key}.json`;
}

/**
 * Subscribes an address, or adds the new topics to its subscription. The first request creates the
 * record with the store's atomic create-if-absent, so of any number of concurrent first requests
 * exactly one is "subscribed". A later one merges its topics into the stored ones and writes only
 * when that adds one.
 *
 * The merge is read-modify-write without a compare-and-swap (the store has none): two requests
 * adding different topics to one address at the same moment can each write its own union, and the
 * last write wins. Both still answer "already-subscribed" and the record stays whole (writes are
 * atomic); only one request's new topics can be lost, and sending them again restores them.
 *
 * Throws 503 `storage_unavailable` when the store cannot be read or written.
 */
export async function subscribe(
  store: ObjectStore,
  subscription: Subscription,
  now = new Date(),
): Promise<SubscribeOutcome> {
  const path = subscriberPath(subscription.email);
  try {
    return await subscribeAt(store, path, subscription, now.toISOString());
  } catch (error) {
    if (error instanceof StoreUnavailableError) {
      console.error(`[newsletter] subscriber ${path} not stored`, error);
      throw new ApiError("storage_unavailable", undefined, { cause: error });
    }
    throw error;
  }
}

async function subscribeAt(
  store: ObjectStore,
  path: string,
  { email, topics }: Subscription,
  now: string,
): Promise<SubscribeOutcome> {
  const fresh: SubscriberRecord = { email, topics, subscribedAt: now, updatedAt: now };
  // Twice at most: ops unsubscribe an address by deleting its record, which can happen in between.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await store.create(path, serialize(fresh), "application/json")) return "subscribed";
    const bytes = await store.get(path);
    if (bytes === null) continue;

    const stored = parseRecord(path, bytes);
    const added = topics.filter((topic) => !stored.topics.includes(topic));
    if (added.length > 0) {
      const merged = { ...stored, topics: [...stored.topics, ...added], updatedAt: now };
      await store.put(path, serialize(merged), "application/json");
    }
    return "already-subscribed";
  }
  throw new StoreUnavailableError(`${path} was removed while subscribing; try again`);
}

function serialize(record: SubscriberRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** A stored record; one that is not (edited by hand, say) is a fault to log, not to overwrite. */
function parseRecord(path: string, bytes: Uint8Array): SubscriberRecord {
  let record: unknown;
  try {
    record = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch (error) {
    throw new Error(`Subscriber record ${path} is not valid JSON`, { cause: error });
  }
  const { email, topics, subscribedAt, updatedAt } = (record ?? {}) as Partial<Record<string, unknown>>;
  if (
    typeof email !== "string" ||
    !Array.isArray(topics) ||
    !topics.every((topic) => typeof topic === "string") ||
    typeof subscribedAt !== "string" ||
    typeof updatedAt !== "string"
  ) {
    throw new Error(`Subscriber record ${path} does not have the expected shape`);
  }
  return { email, topics: topics as Topic[], subscribedAt, updatedAt };
}
