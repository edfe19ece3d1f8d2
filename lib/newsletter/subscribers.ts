import { createHash, randomBytes } from "node:crypto";
import { finishInBackground } from "../background";
import { ApiError } from "../http/errors";
import {
  createIfAbsent,
  Deadline,
  type ObjectStore,
  type StoreCallOptions,
  StoreUnavailableError,
} from "../inbox";
import type { Subscription, Topic } from "../schemas/newsletter";
import { type Verification, VERIFICATIONS } from "../verification/types";

/** What a subscriber's object holds. */
export interface SubscriberRecord {
  /** The address as first given (trimmed); later requests in another case do not change it. */
  email: string;
  topics: Topic[];
  /** ISO 8601, UTC. */
  subscribedAt: string;
  /** When the topics last changed; equal to `subscribedAt` until then. */
  updatedAt: string;
  /**
   * How the request that created the record was checked (`passed`, `unavailable` or `off`). A
   * later request that adds topics leaves it as it was: it says who subscribed the address. Absent
   * in records written before verification existed.
   */
  verification?: Verification;
  /**
   * Random, new with every write of the record: how a writer recognises its own write when the
   * store's answer to it was lost. Absent in records written before it existed.
   */
  revision?: string;
}

export type SubscribeOutcome = "subscribed" | "already-subscribed";

/** A valid subscription and how its request's human check went. */
export type SubscriptionRequest = Subscription & { verification: Verification };

/** Every store call of one newsletter request together, so the answer comes within the contract's 10 s. */
export const SUBSCRIBE_DEADLINE_MS = 8_000;

/** Addresses are one subscriber whatever their case: `Ada@Example.com` is `ada@example.com`. */
export function subscriberPath(email: string): string {
  const key = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  return `newsletter/subscribers/${key}.json`;
}

/**
 * Subscribes an address, or adds the new topics to its subscription. The first request creates the
 * record with the store's atomic create-if-absent, so of any number of concurrent first requests
 * exactly one is "subscribed"; a create whose answer was lost is recognised by its revision, never
 * answered "already-subscribed". A later request merges its topics into the stored ones and
 * writes only when that adds one.
 *
 * The merge is read-modify-write without a compare-and-swap (the store has none): two requests
 * adding different topics to one address at the same moment can each write its own union, and the
 * last write wins. Both still answer "already-subscribed" and the record stays whole (writes are
 * atomic); only one request's new topics can be lost, and sending them again restores them.
 *
 * Every store call is bounded by one deadline (`deadlineMs`). Throws 503 `storage_unavailable`
 * when the store cannot be read or written in time; a record this request created that lands
 * after that answer is removed again once the store has settled.
 */
export async function subscribe(
  store: ObjectStore,
  subscription: SubscriptionRequest,
  now = new Date(),
  deadlineMs = SUBSCRIBE_DEADLINE_MS,
): Promise<SubscribeOutcome> {
  const path = subscriberPath(subscription.email);
  const at = now.toISOString();
  const fresh: SubscriberRecord = {
    email: subscription.email,
    topics: subscription.topics,
    subscribedAt: at,
    updatedAt: at,
    verification: subscription.verification,
    revision: newRevision(),
  };
  const deadline = Deadline.in(deadlineMs);
  try {
    return await subscribeAt(store, path, fresh, deadline.options);
  } catch (error) {
    if (error instanceof StoreUnavailableError) {
      console.error(`[newsletter] subscriber ${path} not stored`, error);
      finishInBackground(removeIfOwn(store, path, fresh, deadline), `undoing subscriber ${path}`);
      throw new ApiError("storage_unavailable", undefined, { cause: error });
    }
    throw error;
  }
}

async function subscribeAt(
  store: ObjectStore,
  path: string,
  fresh: SubscriberRecord,
  options: StoreCallOptions,
): Promise<SubscribeOutcome> {
  // Twice at most: ops unsubscribe an address by deleting its record, which can happen in between.
  for (let attempt = 0; attempt < 2; attempt++) {
    const { created, existing } = await createIfAbsent(
      store,
      path,
      serialize(fresh),
      "application/json",
      options,
    );
    if (created) return "subscribed";
    if (existing === null) continue;

    const stored = parseRecord(path, existing);
    const added = fresh.topics.filter((topic) => !stored.topics.includes(topic));
    if (added.length > 0) {
      const merged = {
        ...stored,
        topics: [...stored.topics, ...added],
        updatedAt: fresh.updatedAt,
        revision: newRevision(),
      };
      await store.put(path, serialize(merged), "application/json", options);
    }
    return "already-subscribed";
  }
  throw new StoreUnavailableError(`${path} was removed while subscribing; try again`);
}

/**
 * After a request was answered 503: once every call it made has settled, removes the record it
 * tried to create if that landed after all, so the address is not subscribed against the answer.
 */
async function removeIfOwn(
  store: ObjectStore,
  path: string,
  fresh: SubscriberRecord,
  deadline: Deadline,
): Promise<void> {
  await deadline.settled();
  const options = { signal: AbortSignal.timeout(UNDO_CALL_MS) };
  const bytes = await store.get(path, options);
  if (bytes === null || parseRecord(path, bytes).revision !== fresh.revision) return;
  await store.delete(path, options);
  console.warn(`[newsletter] subscriber ${path} was stored after its request failed; removed it`);
}

const UNDO_CALL_MS = 5_000;

function newRevision(): string {
  return randomBytes(16).toString("hex");
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
  const { email, topics, subscribedAt, updatedAt, verification, revision } = (record ?? {}) as Partial<
    Record<string, unknown>
  >;
  if (
    typeof email !== "string" ||
    !Array.isArray(topics) ||
    !topics.every((topic) => typeof topic === "string") ||
    typeof subscribedAt !== "string" ||
    typeof updatedAt !== "string" ||
    (verification !== undefined && !VERIFICATIONS.includes(verification as Verification)) ||
    (revision !== undefined && typeof revision !== "string")
  ) {
    throw new Error(`Subscriber record ${path} does not have the expected shape`);
  }
  return {
    email,
    topics: topics as Topic[],
    subscribedAt,
    updatedAt,
    ...(verification === undefined ? {} : { verification: verification as Verification }),
    ...(revision === undefined ? {} : { revision }),
  };
}
