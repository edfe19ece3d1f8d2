import type { ObjectStore } from "../store";
import { subscriberPath } from "../newsletter/subscribers";
import { mapLimit } from "./reader";
import { type ErasePlan, planErase } from "./erase";
import { InboxRecordError } from "./errors";
import { parseJson } from "./parse";
import { parseSubscriber } from "./records";

/**
 * A person's data (the right of access): everything the inbox holds about an address, as stored,
 * in one JSON document. Found as an erasure finds it (`planErase`), so the export shows exactly
 * what "Erase" would remove. Attachments are listed by what `brief.json` records of them (name,
 * type, size, SHA-256), never their bytes.
 */

/** One brief or spam entry: its files as stored (`state` and `delivery` `null` when it has none). */
export interface PersonBrief {
  brief: unknown;
  state: unknown;
  delivery: unknown;
}

export interface PersonData {
  /** The address as it was asked for, trimmed. */
  address: string;
  /** ISO 8601, UTC. */
  generatedAt: string;
  briefs: PersonBrief[];
  spam: PersonBrief[];
  /** The newsletter subscriber record (with its consent evidence), or `null`. */
  subscriber: unknown;
}

/** Folders read at once: enough to hide a remote store's latency. */
const READ_CONCURRENCY = 8;

async function readJsonFile(store: ObjectStore, path: string): Promise<unknown> {
  const bytes = await store.get(path);
  return bytes === null ? null : parseJson(path, bytes);
}

/** One folder's files; `null` (reported) when its `brief.json` is gone or cannot be read. */
async function readFolder(
  store: ObjectStore,
  folder: string,
  onProblem?: (problem: InboxRecordError) => void,
): Promise<PersonBrief | null> {
  try {
    const [brief, state, delivery] = await Promise.all(
      ["brief.json", "state.json", "delivery.json"].map((file) => readJsonFile(store, `${folder}/${file}`)),
    );
    return brief === null ? null : { brief, state, delivery };
  } catch (error) {
    if (!(error instanceof InboxRecordError)) throw error;
    onProblem?.(error);
    return null;
  }
}

/** What the inbox holds about `email`, and the plan it was read from (for the audit's counts). */
export async function collectPersonData(
  store: ObjectStore,
  email: string,
  { now = new Date(), onProblem }: { now?: Date; onProblem?: (problem: InboxRecordError) => void } = {},
): Promise<{ data: PersonData; plan: ErasePlan }> {
  const plan = await planErase(store, email, { now, onProblem });
  const read = async (folders: readonly string[]) =>
    (await mapLimit(folders, READ_CONCURRENCY, (folder) => readFolder(store, folder, onProblem))).filter(
      (entry) => entry !== null,
    );
  const [briefs, spam] = await Promise.all([read(plan.briefs), read(plan.spam)]);
  let subscriber: unknown = null;
  if (plan.subscriber) {
    const path = subscriberPath(plan.email);
    const bytes = await store.get(path);
    try {
      subscriber = bytes === null ? null : parseSubscriber(path, bytes);
    } catch (error) {
      if (!(error instanceof InboxRecordError)) throw error;
      onProblem?.(error);
    }
  }
  return {
    data: { address: plan.email, generatedAt: now.toISOString(), briefs, spam, subscriber },
    plan,
  };
}
