import { createHash, randomBytes } from "node:crypto";
import { finishInBackground } from "../background";
import { toApiError } from "../http/errors";
import {
  type Change,
  Deadline,
  type ObjectStore,
  type StoreCallOptions,
  StoreUnavailableError,
  updateObject,
} from "../store";
import type { RequestSite } from "../http/origin";
import type { Subscription, Topic } from "../schemas/newsletter";
import { type Verification, VERIFICATIONS } from "../verification/types";
import { type ConsentEvidence, consentOf } from "./evidence";
import { markSubscriberChange } from "./subscriber-changes";

/**
 * - `pending`: asked for, waiting for the address to confirm it (double opt-in);
 * - `confirmed`: gets the newsletter (single opt-in confirms at once);
 * - `unsubscribed`: left, by the link in an email (or a mail provider's unsubscribe button).
 */
export type SubscriberStatus = "pending" | "confirmed" | "unsubscribed";

export const SUBSCRIBER_STATUSES: readonly SubscriberStatus[] = ["pending", "confirmed", "unsubscribed"];

/** What a subscriber's object holds. */
export interface SubscriberRecord {
  /** The address as first given (trimmed); later requests in another case do not change it. */
  email: string;
  topics: Topic[];
  /** Records written before statuses existed were all single opt-in: they read as `confirmed`. */
  status: SubscriberStatus;
  /** ISO 8601, UTC: the first request. */
  subscribedAt: string;
  /** When the record last changed (topics or status); equal to `subscribedAt` until then. */
  updatedAt: string;
  /** When the address was last confirmed; `null` until it is. */
  confirmedAt: string | null;
  /** When the address last unsubscribed; `null` if it never did. */
  unsubscribedAt: string | null;
  /**
   * How the request that created the record was checked (`passed`, `unavailable` or `off`). A
   * later request leaves it as it was: it says who subscribed the address. Absent in records
   * written before verification existed.
   */
  verification?: Verification;
  /** The consent evidence of the latest request that (re)started the subscription; absent in older records. */
  consent?: ConsentEvidence;
  /**
   * Random, new with every write of the record: how a writer recognises its own write when the
   * store's answer to it was lost, and the id of the change in webhook events. Absent in records
   * written before it existed.
   */
  revision?: string;
}

/** Every store call of one newsletter request together, so the answer comes within the contract's 10 s. */
export const SUBSCRIBE_DEADLINE_MS = 8_000;

/**
 * A valid subscription, how its request's human check went (`off` when not given) and the salted
 * hash of its client address (`null` or absent: unknown).
 */
export type SubscriptionRequest = Subscription & {
  verification?: Verification;
  ipHash?: string | null;
  /** Where the request came from (`requestSite`); `unknown` when not given. */
  site?: RequestSite;
};

/** The sha256 (hex) of the lowercased address: the subscriber's id, in its path and in link tokens. */
export function subscriberId(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
}

/** A subscriber id as `subscriberId` makes them; anything else names no subscriber. */
export function isSubscriberId(value: string): boolean {
  return /^[0-9a-f]{64}$/.test(value);
}

/** Addresses are one subscriber whatever their case: `Ada@Example.com` is `ada@example.com`. */
export function subscriberPath(email: string): string {
  return subscriberPathById(subscriberId(email));
}

export function subscriberPathById(id: string): string {
  if (!isSubscriberId(id)) throw new Error(`Not a subscriber id: ${JSON.stringify(id)}`);
  return `newsletter/subscribers/${id}.json`;
}

/** What a subscription request made of the address. */
export interface SubscribeResult {
  /**
   * - `subscribed`: confirmed by this request (single opt-in: a new address, or one that had left);
   * - `already-subscribed`: it was confirmed already (new topics merged);
   * - `pending`: it waits for the address to confirm (double opt-in).
   */
  status: "subscribed" | "already-subscribed" | "pending";
  /** The record as stored now. */
  record: SubscriberRecord;
}

/**
 * Subscribes an address, or adds the new topics to its subscription. With single opt-in (part 1)
 * a new address is `confirmed` at once; with double opt-in a new, pending or unsubscribed one is
 * `pending` until it confirms, and a confirmed one stays as it is. Topics always accumulate.
 *
 * The first request creates the record with the store's atomic create-if-absent, so of any number
 * of concurrent first requests exactly one creates it; a create whose answer was lost is
 * recognised by its revision. Most requests are for a new address, so that create is tried before
 * anything is read; an existing record refuses it. Every later change is a conditional write on
 * the version read (`updateObject`), so two requests changing one record at once both land,
 * neither is lost. A request that changes nothing leaves the record as it was.
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
  { doubleOptIn = false }: { doubleOptIn?: boolean } = {},
): Promise<SubscribeResult> {
  const id = subscriberId(subscription.email);
  const at = now.toISOString();
  // The revisions of the creates this request attempted: a late one is undone after a 503.
  const creates: string[] = [];
  const options = { creates, likelyNew: true };
  return changeRecord(store, id, deadlineMs, options, (stored): Change<SubscribeResult> => {
    if (stored === null) {
      const record: SubscriberRecord = {
        email: subscription.email,
        topics: subscription.topics,
        status: doubleOptIn ? "pending" : "confirmed",
        subscribedAt: at,
        updatedAt: at,
        confirmedAt: doubleOptIn ? null : at,
        unsubscribedAt: null,
        verification: subscription.verification ?? "off",
        consent: consentOf(subscription, at, doubleOptIn),
        revision: newRevision(),
      };
      creates.push(record.revision ?? "");
      return { write: serialize(record), result: { status: doubleOptIn ? "pending" : "subscribed", record } };
    }
    const added = subscription.topics.filter((topic) => !stored.topics.includes(topic));
    const topics = [...stored.topics, ...added];
    if (stored.status === "confirmed") {
      if (added.length === 0) return { result: { status: "already-subscribed", record: stored } };
      const record = { ...stored, topics, updatedAt: at, revision: newRevision() };
      return { write: serialize(record), result: { status: "already-subscribed", record } };
    }
    // Pending, or unsubscribed and asking again.
    if (doubleOptIn) {
      if (stored.status === "pending" && added.length === 0)
        return { result: { status: "pending", record: stored } };
      const record: SubscriberRecord = {
        ...stored,
        topics,
        status: "pending",
        updatedAt: at,
        consent: consentOf(subscription, at, true),
        revision: newRevision(),
      };
      return { write: serialize(record), result: { status: "pending", record } };
    }
    const record: SubscriberRecord = {
      ...stored,
      topics,
      status: "confirmed",
      updatedAt: at,
      confirmedAt: at,
      consent: consentOf(subscription, at, false),
      revision: newRevision(),
    };
    return { write: serialize(record), result: { status: "subscribed", record } };
  });
}

/** What a confirmation link did. */
export type ConfirmResult =
  | { outcome: "confirmed" | "already-subscribed"; record: SubscriberRecord }
  /** No record (ops removed it), or it was unsubscribed after the link was sent: the link is spent. */
  | { outcome: "not-pending"; record: SubscriberRecord | null };

/**
 * Confirms a pending subscriber: `confirmed`, with `confirmedAt`. A confirmed one answers
 * `already-subscribed` and is left as it is; an unsubscribed or missing one is not confirmed
 * (an unsubscribe after the email was sent outranks its older link). One conditional write, so a
 * confirm racing an unsubscribe or another confirm never loses either change.
 */
export async function confirmSubscriber(
  store: ObjectStore,
  id: string,
  now = new Date(),
  deadlineMs = SUBSCRIBE_DEADLINE_MS,
): Promise<ConfirmResult> {
  const at = now.toISOString();
  return changeRecord(store, id, deadlineMs, {}, (stored): Change<ConfirmResult> => {
    if (stored === null || stored.status === "unsubscribed")
      return { result: { outcome: "not-pending", record: stored } };
    if (stored.status === "confirmed") return { result: { outcome: "already-subscribed", record: stored } };
    const record: SubscriberRecord = {
      ...stored,
      status: "confirmed",
      updatedAt: at,
      confirmedAt: at,
      ...(stored.consent ? { consent: { ...stored.consent, confirmedAt: at } } : {}),
      revision: newRevision(),
    };
    return { write: serialize(record), result: { outcome: "confirmed", record } };
  });
}

/** What an unsubscribe did: the status before (`null`: no record) and the record now. */
export interface UnsubscribeResult {
  previous: SubscriberStatus | null;
  record: SubscriberRecord | null;
}

/**
 * Unsubscribes: `unsubscribed`, with `unsubscribedAt`. Idempotent: an unsubscribed or missing
 * subscriber is left as it is. The record is kept (topics, dates), so ops still see who left and
 * when, and a later subscription starts from it.
 */
export async function unsubscribeSubscriber(
  store: ObjectStore,
  id: string,
  now = new Date(),
  deadlineMs = SUBSCRIBE_DEADLINE_MS,
): Promise<UnsubscribeResult> {
  const at = now.toISOString();
  return changeRecord(store, id, deadlineMs, {}, (stored): Change<UnsubscribeResult> => {
    if (stored === null || stored.status === "unsubscribed") {
      return { result: { previous: stored?.status ?? null, record: stored } };
    }
    const record: SubscriberRecord = {
      ...stored,
      status: "unsubscribed",
      updatedAt: at,
      unsubscribedAt: at,
      revision: newRevision(),
    };
    return { write: serialize(record), result: { previous: stored.status, record } };
  });
}

/** The record of a subscriber id, or `null`; bounded like every other call. */
export async function readSubscriber(
  store: ObjectStore,
  id: string,
  deadlineMs = SUBSCRIBE_DEADLINE_MS,
): Promise<SubscriberRecord | null> {
  const path = subscriberPathById(id);
  const bytes = await store.get(path, { signal: AbortSignal.timeout(deadlineMs) });
  return bytes === null ? null : parseRecord(path, bytes);
}

/**
 * One request's change of a record, under one deadline, with a conditional write (see
 * `updateObject`; `likelyNew` when the record is most likely not there yet), after the change mark
 * that tells the subscribers' index to read it again (`markSubscriberChange`). A store failure is
 * 503 `storage_unavailable`; then any record this request created (`creates` holds their
 * revisions) that lands late is removed once the store settles.
 */
async function changeRecord<T>(
  store: ObjectStore,
  id: string,
  deadlineMs: number,
  { creates = [], likelyNew = false }: { creates?: readonly string[]; likelyNew?: boolean },
  change: (stored: SubscriberRecord | null) => Change<T>,
): Promise<T> {
  const path = subscriberPathById(id);
  const deadline = Deadline.in(deadlineMs);
  try {
    await markSubscriberChange(store, id, Date.now(), deadline.options);
    const result = await updateObject(
      store,
      path,
      "application/json",
      (bytes) => change(bytes === null ? null : parseRecord(path, bytes)),
      { ...deadline.options, likelyNew },
    );
    deadline.end();
    return result;
  } catch (error) {
    if (error instanceof StoreUnavailableError) {
      console.error(`[newsletter] subscriber ${path} not stored`, error);
      if (creates.length > 0) {
        finishInBackground(removeIfOwn(store, path, creates, deadline), `undoing subscriber ${path}`);
      }
      throw toApiError(error);
    }
    throw error;
  }
}

/**
 * After a request was answered 503: once every call it made has settled, removes the record it
 * tried to create if that landed after all (and nobody changed it since), so the address is not
 * subscribed against the answer.
 */
async function removeIfOwn(
  store: ObjectStore,
  path: string,
  creates: readonly string[],
  deadline: Deadline,
): Promise<void> {
  await deadline.settled();
  const options: StoreCallOptions = { signal: AbortSignal.timeout(UNDO_CALL_MS) };
  const stored = await store.getVersioned(path, options);
  if (stored === null) return;
  const { revision } = parseRecord(path, stored.bytes);
  if (revision === undefined || !creates.includes(revision)) return;
  if (await store.deleteIfVersion(path, stored.version, options)) {
    console.warn(`[newsletter] subscriber ${path} was stored after its request failed; removed it`);
  }
}

const UNDO_CALL_MS = 5_000;

/**
 * Random bytes for revisions, drawn 256 revisions at a time: each draw of the system's generator
 * costs a request more than the hex it yields (node:crypto's `randomUUID` pools alike).
 */
const REVISION_BYTES = 16;
let revisionPool = Buffer.alloc(0);
let revisionOffset = 0;

function newRevision(): string {
  if (revisionOffset + REVISION_BYTES > revisionPool.length) {
    revisionPool = randomBytes(REVISION_BYTES * 256);
    revisionOffset = 0;
  }
  revisionOffset += REVISION_BYTES;
  return revisionPool.toString("hex", revisionOffset - REVISION_BYTES, revisionOffset);
}

function serialize(record: SubscriberRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** A stored record; one that is not (edited by hand, say) is a fault to log, not to overwrite. */
export function parseRecord(path: string, bytes: Uint8Array): SubscriberRecord {
  let record: unknown;
  try {
    record = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch (error) {
    throw new Error(`Subscriber record ${path} is not valid JSON`, { cause: error });
  }
  const {
    email,
    topics,
    status,
    subscribedAt,
    updatedAt,
    confirmedAt,
    unsubscribedAt,
    verification,
    revision,
  } = (record ?? {}) as Partial<Record<string, unknown>>;
  const optionalTime = (value: unknown) => value === undefined || value === null || typeof value === "string";
  if (
    typeof email !== "string" ||
    !Array.isArray(topics) ||
    !topics.every((topic) => typeof topic === "string") ||
    (status !== undefined && !SUBSCRIBER_STATUSES.includes(status as SubscriberStatus)) ||
    typeof subscribedAt !== "string" ||
    typeof updatedAt !== "string" ||
    !optionalTime(confirmedAt) ||
    !optionalTime(unsubscribedAt) ||
    (verification !== undefined && !VERIFICATIONS.includes(verification as Verification)) ||
    (revision !== undefined && typeof revision !== "string")
  ) {
    throw new Error(`Subscriber record ${path} does not have the expected shape`);
  }
  // Before statuses, every subscriber was confirmed the moment it subscribed.
  const legacy = status === undefined;
  return {
    // Fields this code does not know (another feature's) are kept: a change never drops them.
    ...(record as object),
    email,
    topics: topics as Topic[],
    status: legacy ? "confirmed" : (status as SubscriberStatus),
    subscribedAt,
    updatedAt,
    confirmedAt: legacy ? subscribedAt : ((confirmedAt as string | null | undefined) ?? null),
    unsubscribedAt: (unsubscribedAt as string | null | undefined) ?? null,
    ...(verification === undefined ? {} : { verification: verification as Verification }),
    ...(revision === undefined ? {} : { revision }),
  };
}
