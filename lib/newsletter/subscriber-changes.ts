import { randomBytes } from "node:crypto";
import type { ObjectStore, StoreCallOptions } from "../store";

/**
 * The subscribers' index (lib/ops/subscriber-index.ts) keeps the list on the web from reading
 * every record per view. Writers never rewrite that index: one write per request to a file that
 * holds every subscriber would make concurrent subscriptions queue on it. Each writer instead
 * leaves a change mark, `newsletter/changes/<ms>-<random>-<id>.json`, *before* it changes or
 * removes a record; a view re-reads the records its marks name and folds them into the index.
 * A mark written first means no change can land unmarked: a request whose mark fails is answered
 * 503 before anything changed. The name is unique, so marks never contend with each other.
 */
export const SUBSCRIBER_CHANGES_PREFIX = "newsletter/changes/";

const MARK = /^newsletter\/changes\/(\d{13})-[0-9a-f]{12}-([0-9a-f]{64})\.json$/;

/** A change mark: the subscriber it names and when it was left (ms since the epoch). */
export interface SubscriberChangeMark {
  path: string;
  id: string;
  at: number;
}

export function parseChangeMark(path: string): SubscriberChangeMark | null {
  const match = MARK.exec(path);
  return match ? { path, id: match[2]!, at: Number(match[1]) } : null;
}

/** Leaves the mark of a change about to be made to subscriber `id`. Throws `StoreUnavailableError`. */
export async function markSubscriberChange(
  store: ObjectStore,
  id: string,
  now = Date.now(),
  options?: StoreCallOptions,
): Promise<void> {
  const path = `${SUBSCRIBER_CHANGES_PREFIX}${String(now).padStart(13, "0")}-${randomBytes(6).toString("hex")}-${id}.json`;
  // A random name never meets another mark; a retried create that meets its own is as good.
  await store.create(path, "{}\n", "application/json", options);
}
