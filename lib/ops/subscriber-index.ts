import { afterResponse, type Deferral } from "../background";
import { describeFailure } from "../notify";
import {
  markSubscriberChange,
  parseChangeMark,
  SUBSCRIBER_CHANGES_PREFIX,
  type SubscriberChangeMark,
} from "../newsletter/subscriber-changes";
import { subscriberPathById, type SubscriberRecord } from "../newsletter/subscribers";
import type { ObjectStore, StoreCallOptions } from "../store";
import { InboxRecordError } from "./errors";
import { asciiJson } from "./index-document";
import { mapLimit } from "./reader";
import { parseSubscriber } from "./records";

/**
 * The subscribers' index: one object, `index/subscribers/index.json`, with a summary of every
 * subscriber (what the list on the web shows and the CSV holds), so a view of 50,000 subscribers
 * reads one object instead of 50,000. It is a cache of the records, never the truth:
 *
 * - writers leave a change mark before they change a record (`markSubscriberChange`); a view reads
 *   the records its marks name again and folds them in, so it shows every change that has landed;
 * - a view that finds marks older than `SETTLED_MS` writes the folded index back once it has
 *   answered (a conditional
 *   write on the version it read: of two views at once, one writes, the other just shows) and then
 *   removes those marks. Younger marks are kept, read again by the next view: their writer may
 *   still be writing, and its change must not be folded in early and then forgotten;
 * - missing, damaged or of another version, it is rebuilt from every record (listing the marks
 *   first, so a change made during the rebuild is still read by the next view);
 * - an erasure takes the address out of the index at once (`forgetSubscribersInIndex`); a rebuild
 *   that was reading the records meanwhile lists them again once written and drops what is gone.
 */

export const SUBSCRIBER_INDEX_PATH = "index/subscribers/index.json";
const INDEX_VERSION = 2;

/**
 * How old a mark must be before a view may remove it: far past every writer's deadline (8 s), so
 * the change it announced has landed (or failed) by then.
 */
export const SETTLED_MS = 5 * 60_000;

/** Whether `mark` is older than `SETTLED_MS` at `now` (ms): its change has landed, or never will. */
const isSettled = (mark: SubscriberChangeMark, now: number) => now - mark.at > SETTLED_MS;

const READ_CONCURRENCY = 16;

/** What the list and the CSV need of a subscriber, without the internal revision or the IP hash. */
export interface SubscriberSummary {
  /** sha256 of the lowercased address: the record's name, and the link to the person's data. */
  id: string;
  email: string;
  status: SubscriberRecord["status"];
  topics: SubscriberRecord["topics"];
  subscribedAt: string;
  updatedAt: string;
  confirmedAt: string | null;
  unsubscribedAt: string | null;
  verification: NonNullable<SubscriberRecord["verification"]>;
  /** How consent was given; `null` for records from before consent evidence existed. */
  consent: { method: "single" | "double"; page: string | null; site: string | null } | null;
}

/**
 * The stored form: one array per subscriber rather than an object, so 50,000 of them parse in a
 * fraction of the time (no key repeated 50,000 times). `ROW` is the order of its cells.
 */
type Row = [
  id: string,
  email: string,
  status: SubscriberSummary["status"],
  topics: SubscriberSummary["topics"],
  subscribedAt: string,
  updatedAt: string,
  confirmedAt: string | null,
  unsubscribedAt: string | null,
  verification: SubscriberSummary["verification"],
  method: "single" | "double" | null,
  page: string | null,
  site: string | null,
];

interface IndexDocument {
  version: number;
  builtAt: string;
  rows: Row[];
}

function toRow(summary: SubscriberSummary): Row {
  const { consent } = summary;
  return [
    summary.id,
    summary.email,
    summary.status,
    summary.topics,
    summary.subscribedAt,
    summary.updatedAt,
    summary.confirmedAt,
    summary.unsubscribedAt,
    summary.verification,
    consent?.method ?? null,
    consent?.page ?? null,
    consent?.site ?? null,
  ];
}

function fromRow(row: Row): SubscriberSummary {
  const [id, email, status, topics, subscribedAt, updatedAt, confirmedAt, unsubscribedAt, verification] = row;
  const [method, page, site] = [row[9], row[10], row[11]];
  return {
    id,
    email,
    status,
    topics,
    subscribedAt,
    updatedAt,
    confirmedAt,
    unsubscribedAt,
    verification,
    consent: method === null ? null : { method, page, site },
  };
}

export function summarizeSubscriber(id: string, record: SubscriberRecord): SubscriberSummary {
  return {
    id,
    email: record.email,
    status: record.status,
    topics: record.topics,
    subscribedAt: record.subscribedAt,
    updatedAt: record.updatedAt,
    confirmedAt: record.confirmedAt,
    unsubscribedAt: record.unsubscribedAt,
    verification: record.verification ?? "off",
    consent: record.consent
      ? {
          method: record.consent.method,
          page: record.consent.page ?? null,
          site: record.consent.site ?? null,
        }
      : null,
  };
}

/** Newest subscription first; one id before another at the same instant, so pages never overlap. */
function newestFirst(a: SubscriberSummary, b: SubscriberSummary): number {
  if (a.subscribedAt !== b.subscribedAt) return a.subscribedAt < b.subscribedAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function parseIndex(bytes: Uint8Array): SubscriberSummary[] | null {
  try {
    const document = JSON.parse(Buffer.from(bytes).toString("utf8")) as Partial<IndexDocument> | null;
    if (document?.version !== INDEX_VERSION || !Array.isArray(document.rows)) return null;
    return document.rows.map(fromRow);
  } catch {
    return null;
  }
}

function serializeIndex(subscribers: readonly SubscriberSummary[], now: Date): string {
  const document: IndexDocument = {
    version: INDEX_VERSION,
    builtAt: now.toISOString(),
    rows: subscribers.map(toRow),
  };
  return asciiJson(document);
}

async function listMarks(store: ObjectStore, call?: StoreCallOptions): Promise<SubscriberChangeMark[]> {
  const marks: SubscriberChangeMark[] = [];
  for await (const info of store.list(SUBSCRIBER_CHANGES_PREFIX, call)) {
    const mark = parseChangeMark(info.path);
    if (mark) marks.push(mark);
  }
  return marks;
}

type ProblemReporter = (problem: InboxRecordError) => void;

/** The record of `id` as a summary; `null` when it is gone or cannot be read (reported). */
async function readSummary(
  store: ObjectStore,
  id: string,
  onProblem?: ProblemReporter,
  call?: StoreCallOptions,
): Promise<SubscriberSummary | null> {
  const path = subscriberPathById(id);
  const bytes = await store.get(path, call);
  if (bytes === null) return null;
  try {
    return summarizeSubscriber(id, parseSubscriber(path, bytes));
  } catch (error) {
    if (!(error instanceof InboxRecordError)) throw error;
    onProblem?.(error);
    return null;
  }
}

/** Removes settled marks; one that cannot be removed now is read again next time, which is harmless. */
async function removeMarks(
  store: ObjectStore,
  marks: readonly SubscriberChangeMark[],
  now: number,
  call?: StoreCallOptions,
) {
  const settled = marks.filter((mark) => isSettled(mark, now));
  await mapLimit(settled, READ_CONCURRENCY, (mark) => store.delete(mark.path, call).catch(() => undefined));
}

/** The id of every subscriber record in the store. */
async function listIds(store: ObjectStore): Promise<string[]> {
  const ids: string[] = [];
  for await (const info of store.list("newsletter/subscribers/")) {
    const match = /^newsletter\/subscribers\/([0-9a-f]{64})\.json$/.exec(info.path);
    if (match) ids.push(match[1]!);
  }
  return ids;
}

async function rebuild(
  store: ObjectStore,
  existingVersion: string | null,
  now: Date,
  onProblem?: ProblemReporter,
): Promise<SubscriberSummary[]> {
  const marks = await listMarks(store);
  const ids = await listIds(store);
  const read = await mapLimit(ids, READ_CONCURRENCY, (id) => readSummary(store, id, onProblem));
  const subscribers = read.filter((summary) => summary !== null).sort(newestFirst);
  const body = serializeIndex(subscribers, now);
  let written = false;
  try {
    written =
      existingVersion === null
        ? await store.create(SUBSCRIBER_INDEX_PATH, body, "application/json")
        : await store.putIfVersion(SUBSCRIBER_INDEX_PATH, body, "application/json", existingVersion);
  } catch (error) {
    console.warn(`[ops] could not write ${SUBSCRIBER_INDEX_PATH}: ${describeFailure(error)}`);
  }
  // Lost to another view's rebuild: its index serves the next view; this one's list is as good.
  if (!written) return subscribers;
  await removeMarks(store, marks, now.getTime());
  return withoutErasedMeanwhile(store, subscribers, now);
}

/**
 * After a rebuild wrote its index: a record erased (or removed by retention) while the others were
 * read found no index to take its address out of, and its marks were removed with it, so nothing
 * would ever drop it from the index just written. The records are listed again and what is gone
 * comes out, of the index and of the view. A store that fails here is logged and the view goes on;
 * the index is deleted if it can be (the next view rebuilds it).
 */
async function withoutErasedMeanwhile(
  store: ObjectStore,
  subscribers: SubscriberSummary[],
  now: Date,
): Promise<SubscriberSummary[]> {
  let gone: Set<string>;
  try {
    const listed = new Set(await listIds(store));
    gone = new Set(subscribers.filter(({ id }) => !listed.has(id)).map(({ id }) => id));
  } catch (error) {
    console.warn(`[ops] could not check ${SUBSCRIBER_INDEX_PATH} for erasures: ${describeFailure(error)}`);
    await store.delete(SUBSCRIBER_INDEX_PATH).catch(() => undefined);
    return subscribers;
  }
  if (gone.size === 0) return subscribers;
  await forgetSubscribersInIndex(store, gone, now).catch((error: unknown) =>
    console.warn(
      `[ops] could not take erased subscribers out of ${SUBSCRIBER_INDEX_PATH}: ${describeFailure(error)}`,
    ),
  );
  return subscribers.filter(({ id }) => !gone.has(id));
}

/**
 * Every subscriber, newest first, as of now: the index with the changes its marks announce read
 * in. Throws `StoreUnavailableError` when the store cannot be read; a failure to write the index
 * back is logged and the view goes on.
 */
export async function readSubscriberIndex(
  store: ObjectStore,
  {
    now = new Date(),
    onProblem,
    defer = afterResponse,
  }: { now?: Date; onProblem?: ProblemReporter; defer?: Deferral } = {},
): Promise<SubscriberSummary[]> {
  // The marks first: one that a fold removes after this listing is in the index read next.
  const marks = await listMarks(store);
  const settled = marks.some((mark) => isSettled(mark, now.getTime()));
  // The version (on the filesystem a SHA-256 of the whole index) only when there is a fold to write.
  const stored = settled
    ? await store.getVersioned(SUBSCRIBER_INDEX_PATH)
    : await store
        .get(SUBSCRIBER_INDEX_PATH)
        .then((bytes) => (bytes === null ? null : { bytes, version: null }));
  const indexed = stored === null ? null : parseIndex(stored.bytes);
  if (indexed === null) {
    const damaged = stored === null ? null : await store.getVersioned(SUBSCRIBER_INDEX_PATH);
    return rebuild(store, damaged?.version ?? null, now, onProblem);
  }
  if (marks.length === 0) return indexed;
  const subscribers = await withChanges(store, indexed, marks, onProblem);
  const version = settled ? stored?.version : null;
  if (version) {
    // After the answer: writing the whole index (and on the filesystem its fsync) is no part of a view.
    defer(
      () => writeFold(store, subscribers, marks, version, now),
      "folding subscriber changes into the index",
    );
  }
  return subscribers;
}

/**
 * gc's part (a long-lived server's hourly run, the cron route, the ops tool): the settled marks
 * folded into the index and removed, as a view does, so that they do not pile up while nobody
 * opens the list (the next view would read again every record they name). Nothing while no mark
 * has settled, and nothing without an index (the next view builds one from every record). The
 * number of marks folded (`dryRun`: that would be).
 */
export async function foldSubscriberChanges(
  store: ObjectStore,
  {
    now = new Date(),
    dryRun = false,
    onProblem,
    call,
  }: { now?: Date; dryRun?: boolean; onProblem?: ProblemReporter; call?: StoreCallOptions } = {},
): Promise<number> {
  const marks = await listMarks(store, call);
  const settled = marks.filter((mark) => isSettled(mark, now.getTime())).length;
  if (settled === 0 || dryRun) return settled;
  const stored = await store.getVersioned(SUBSCRIBER_INDEX_PATH, call);
  const indexed = stored === null ? null : parseIndex(stored.bytes);
  if (stored === null || indexed === null) return 0;
  const subscribers = await withChanges(store, indexed, marks, onProblem, call);
  return (await writeFold(store, subscribers, marks, stored.version, now, call)) ? settled : 0;
}

/** `indexed` with each subscriber the marks name read again (and left out when gone). */
async function withChanges(
  store: ObjectStore,
  indexed: readonly SubscriberSummary[],
  marks: readonly SubscriberChangeMark[],
  onProblem?: ProblemReporter,
  call?: StoreCallOptions,
): Promise<SubscriberSummary[]> {
  const ids = [...new Set(marks.map((mark) => mark.id))];
  const fresh = await mapLimit(ids, READ_CONCURRENCY, (id) => readSummary(store, id, onProblem, call));
  const changed = new Set(ids);
  const subscribers = indexed.filter((summary) => !changed.has(summary.id));
  for (const summary of fresh) if (summary !== null) subscribers.push(summary);
  return subscribers.sort(newestFirst);
}

/**
 * The folded index written over the `version` it was read at, then the settled marks removed;
 * whether it was written (another fold, or an erasure, got there first: its marks wait). A failure
 * is logged: the marks stay, and the next view or gc folds them.
 */
async function writeFold(
  store: ObjectStore,
  subscribers: readonly SubscriberSummary[],
  marks: readonly SubscriberChangeMark[],
  version: string,
  now: Date,
  call?: StoreCallOptions,
): Promise<boolean> {
  try {
    const body = serializeIndex(subscribers, now);
    const written = await store.putIfVersion(SUBSCRIBER_INDEX_PATH, body, "application/json", version, call);
    if (!written) return false;
    await removeMarks(store, marks, now.getTime(), call);
    return true;
  } catch (error) {
    console.warn(`[ops] could not write ${SUBSCRIBER_INDEX_PATH}: ${describeFailure(error)}`);
    return false;
  }
}

/** The ops tool's `reindex`: the index rebuilt from every record (after records were changed by hand). */
export async function rebuildSubscriberIndex(
  store: ObjectStore,
  { now = new Date(), onProblem }: { now?: Date; onProblem?: ProblemReporter } = {},
): Promise<number> {
  await store.delete(SUBSCRIBER_INDEX_PATH);
  return (await readSubscriberIndex(store, { now, onProblem })).length;
}

const FORGET_TRIES = 5;

/**
 * After subscriber records were erased: their summaries (the addresses) leave the index at once,
 * with a conditional write; when that cannot be done the index is deleted (rebuilt by the next
 * view), and if that fails too the erasure fails. The caller marks the change before removing the
 * record, so a view that read the record just before still drops it; a rebuild under way when
 * there was no index to write to checks for it once it has written its own (`rebuild`).
 */
async function forgetSubscribersInIndex(
  store: ObjectStore,
  ids: ReadonlySet<string>,
  now = new Date(),
): Promise<void> {
  for (let attempt = 0; attempt < FORGET_TRIES; attempt++) {
    const stored = await store.getVersioned(SUBSCRIBER_INDEX_PATH).catch(() => undefined);
    if (stored === null) return;
    const indexed = stored === undefined ? null : parseIndex(stored.bytes);
    if (stored === undefined || indexed === null) break;
    if (!indexed.some((summary) => ids.has(summary.id))) return;
    const kept = indexed.filter((summary) => !ids.has(summary.id));
    const written = await store
      .putIfVersion(SUBSCRIBER_INDEX_PATH, serializeIndex(kept, now), "application/json", stored.version)
      .catch(() => false);
    if (written) return;
  }
  await store.delete(SUBSCRIBER_INDEX_PATH);
}

/**
 * An erasure's part in the newsletter: the record removed (marked first, so a view that read it
 * just before drops it), its summary out of the index, then every mark naming it, so nothing under
 * `newsletter/` names the person afterwards (the audit log keeps the same SHA-256).
 */
export async function eraseSubscriber(store: ObjectStore, id: string, now = new Date()): Promise<void> {
  await markSubscriberChange(store, id, Date.now());
  await store.delete(subscriberPathById(id));
  await forgetSubscribersInIndex(store, new Set([id]), now);
  const own = (await listMarks(store)).filter((mark) => mark.id === id);
  for (const mark of own) await store.delete(mark.path);
}
