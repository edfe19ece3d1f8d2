import { createHash } from "node:crypto";
import type { ObjectStore, StoreCallOptions } from "../store";
import { type Folder, spamVerdict } from "../briefs";
import type { SubscriberRecord } from "../newsletter/subscribers";
import type { Delivery } from "../briefs";
import { InboxRecordError, OpsError } from "./errors";
import { parseBriefRecord, parseDelivery, parseSubscriber, type StoredBrief } from "./records";
import { NEW_STATE, parseState } from "./state";

/** `briefs/YYYY/MM/DD/<reference>/<file>` (or `spam/...`): the layout `saveBrief` writes. */
const BRIEF_OBJECT = /^(briefs|spam)\/(\d{4})\/(\d{2})\/(\d{2})\/([^/]+)\/([^/]+)$/;

/** Objects fetched at once while reading one day's briefs: enough to hide a remote store's latency. */
const READ_CONCURRENCY = 8;

export interface ReadBriefsOptions {
  /** Only briefs received on this UTC day (`YYYY-MM-DD`) or later. */
  since?: string;
  /** Told about each brief that cannot be read; the listing goes on without it. */
  onProblem?: (problem: InboxRecordError) => void;
  /** Decides from `delivery.json` alone whether a brief is read at all (`null`: it has none). */
  select?: (delivery: Delivery | null) => boolean;
  now?: Date;
}

export interface BriefFolder {
  folder: string;
  reference: string;
  /** `YYYY-MM-DD`, from the path. */
  day: string;
  hasBrief: boolean;
  hasDelivery: boolean;
  hasState: boolean;
  /**
   * What the listing says of the files a summary is made from (`brief.json`, `state.json`,
   * `delivery.json`: name, size, time): any write to one of them changes it.
   */
  fingerprint: string;
}

/** The files whose content a brief's summary (and its place in the list) depends on. */
const SUMMARISED_FILES = new Set(["brief.json", "state.json", "delivery.json"]);

/** Months are counted as `year * 12 + month - 1`, so that stepping back one is `- 1`. */
export function monthNumber(year: number, month: number): number {
  return year * 12 + month - 1;
}

/** `YYYY/MM` of a month number. */
export function monthPath(month: number): string {
  const year = Math.floor(month / 12);
  return `${String(year).padStart(4, "0")}/${String((month % 12) + 1).padStart(2, "0")}`;
}

function monthPrefix(kind: Folder, month: number): string {
  const year = Math.floor(month / 12);
  return `${kind}/${String(year).padStart(4, "0")}/${String((month % 12) + 1).padStart(2, "0")}/`;
}

/** Whether the store holds anything under `prefix` (it stops at the first object). */
async function hasAny(store: ObjectStore, prefix: string): Promise<boolean> {
  for await (const _ of store.list(prefix)) return true;
  return false;
}

/** The month of the oldest brief: the first one the store lists, since it lists in path order. */
async function oldestMonth(store: ObjectStore, kind: Folder): Promise<number | null> {
  for await (const info of store.list(`${kind}/`)) {
    const match = BRIEF_OBJECT.exec(info.path);
    if (match) return monthNumber(Number(match[2]), Number(match[3]));
  }
  return null;
}

/**
 * The months to walk, newest first: from December of the current year (or of the oldest brief's,
 * if this clock is behind it), extended year by year while the next year holds anything, so that
 * briefs dated ahead of this machine's clock are not missed; down to the oldest brief's month, or
 * the month of `since`. An empty month costs one listing that finds nothing.
 */
export async function monthRange(
  store: ObjectStore,
  kind: Folder,
  now: Date,
  since?: string,
): Promise<{ newest: number; oldest: number } | null> {
  const oldest = since
    ? monthNumber(Number(since.slice(0, 4)), Number(since.slice(5, 7)))
    : await oldestMonth(store, kind);
  if (oldest === null) return null;
  let year = Math.max(now.getUTCFullYear(), Math.floor(oldest / 12));
  while (await hasAny(store, `${kind}/${String(year + 1).padStart(4, "0")}/`)) year++;
  return { newest: monthNumber(year, 12), oldest };
}

/** One month's brief folders, newest day first (one listing of the month's prefix). */
export async function listMonth(
  store: ObjectStore,
  kind: Folder,
  month: number,
  options?: StoreCallOptions,
): Promise<BriefFolder[][]> {
  return listFolders(store, monthPrefix(kind, month), options);
}

/** One day's brief folders (`day`: `YYYY-MM-DD`): one listing of the day's prefix. */
export async function listDay(
  store: ObjectStore,
  kind: Folder,
  day: string,
  options?: StoreCallOptions,
): Promise<BriefFolder[]> {
  return (await listFolders(store, `${kind}/${day.replaceAll("-", "/")}/`, options)).flat();
}

async function listFolders(
  store: ObjectStore,
  prefix: string,
  options?: StoreCallOptions,
): Promise<BriefFolder[][]> {
  const folders = new Map<string, BriefFolder>();
  for await (const info of store.list(prefix, options)) {
    const match = BRIEF_OBJECT.exec(info.path);
    if (!match) continue;
    const [, , year, mm, dd, reference = "", file] = match;
    const folder = info.path.slice(0, info.path.lastIndexOf("/"));
    let entry = folders.get(folder);
    if (!entry) {
      entry = {
        folder,
        reference,
        day: `${year}-${mm}-${dd}`,
        hasBrief: false,
        hasDelivery: false,
        hasState: false,
        fingerprint: "",
      };
      folders.set(folder, entry);
    }
    if (file === "brief.json") entry.hasBrief = true;
    if (file === "delivery.json") entry.hasDelivery = true;
    if (file === "state.json") entry.hasState = true;
    if (file && SUMMARISED_FILES.has(file)) {
      entry.fingerprint += `${file}:${info.size}:${info.uploadedAt.getTime()};`;
    }
  }
  // A folder without brief.json is a save that never reached its commit point: not a brief.
  const days = new Map<string, BriefFolder[]>();
  for (const entry of folders.values()) {
    if (entry.hasBrief) days.set(entry.day, [...(days.get(entry.day) ?? []), entry]);
  }
  return [...days.entries()].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0)).map(([, list]) => list);
}

export async function readBrief(
  store: ObjectStore,
  kind: Folder,
  entry: BriefFolder,
  select?: ReadBriefsOptions["select"],
): Promise<StoredBrief | null> {
  const deliveryPath = `${entry.folder}/delivery.json`;
  const path = `${entry.folder}/brief.json`;
  const statePath = `${entry.folder}/state.json`;
  // Without `select`, the three files are fetched at once: one round trip to a remote store, not three.
  const [deliveryBytes, briefBytes, stateBytes] = await Promise.all([
    entry.hasDelivery ? store.get(deliveryPath) : null,
    select ? undefined : store.get(path),
    !select && entry.hasState ? store.get(statePath) : null,
  ]);
  const delivery = deliveryBytes === null ? null : parseDelivery(deliveryPath, deliveryBytes);
  if (select && !select(delivery)) return null;
  const bytes = briefBytes === undefined ? await store.get(path) : briefBytes;
  if (bytes === null) return null; // removed since the listing
  const parsed = parseBriefRecord(path, bytes);
  // A spam entry always says what caught it: one stored before the rules existed, the honeypot.
  const verdict = spamVerdict(kind, parsed);
  const record = verdict === null ? parsed : { ...parsed, spam: verdict };
  if (record.reference !== entry.reference) {
    throw new InboxRecordError(`${path} holds brief ${record.reference}, not ${entry.reference}`);
  }
  const stored = select && entry.hasState ? await store.get(statePath) : stateBytes;
  const state = stored === null || stored === undefined ? NEW_STATE : parseState(statePath, stored);
  return { kind, folder: entry.folder, record, delivery, state };
}

/** Runs `work` over `items`, at most `limit` at once, keeping the order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function newestFirst(a: StoredBrief, b: StoredBrief): number {
  const key = (brief: StoredBrief) => `${brief.record.receivedAt} ${brief.record.reference}`;
  return key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0;
}

/**
 * The briefs under `briefs/` (or `spam/`), newest first, read as they are iterated: the store is
 * listed one month at a time from the newest (see `monthRange`), and each day's briefs are read and sorted together,
 * so a long listing starts at once and `since` stops it without touching anything older.
 * A brief that cannot be read is passed to `onProblem` and left out; a store that cannot be reached
 * throws `StoreUnavailableError`.
 */
export async function* readBriefs(
  store: ObjectStore,
  kind: Folder,
  options: ReadBriefsOptions = {},
): AsyncGenerator<StoredBrief> {
  const { since, onProblem, select } = options;
  const range = await monthRange(store, kind, options.now ?? new Date(), since);
  if (range === null) return;
  for (let month = range.newest; month >= range.oldest; month--) {
    for (const day of await listMonth(store, kind, month)) {
      if (since && (day[0]?.day ?? "") < since) return;
      const briefs = await mapLimit(day, READ_CONCURRENCY, (entry) =>
        readBrief(store, kind, entry, select).catch((error: unknown) => {
          if (!(error instanceof InboxRecordError)) throw error;
          onProblem?.(error);
          return null;
        }),
      );
      yield* briefs.filter((brief) => brief !== null).sort(newestFirst);
    }
  }
}

/**
 * The brief with this (canonical) reference, real or caught by the honeypot, found by listing the
 * months newest first; `null` when there is none. `find.ts`'s `findBrief` asks the list's index first.
 */
export async function findBriefByListing(
  store: ObjectStore,
  reference: string,
  now = new Date(),
): Promise<StoredBrief | null> {
  for (const kind of ["briefs", "spam"] as const) {
    const range = await monthRange(store, kind, now);
    if (range === null) continue;
    for (let month = range.newest; month >= range.oldest; month--) {
      for (const day of await listMonth(store, kind, month)) {
        const entry = day.find((candidate) => candidate.reference === reference);
        if (entry) return readBrief(store, kind, entry);
      }
    }
  }
  return null;
}

/**
 * The attached file's bytes, checked against `brief.json` (size and SHA-256): a file that is
 * missing or differs from what was received throws, so a damaged file is never handed on.
 */
export async function readAttachment(store: ObjectStore, brief: StoredBrief): Promise<Uint8Array> {
  const { attachment, reference } = brief.record;
  if (!attachment) throw new OpsError(`Brief ${reference} has no attachment.`);
  const path = `${brief.folder}/${attachment.filename}`;
  const bytes = await store.get(path);
  if (bytes === null) throw new OpsError(`The attachment of brief ${reference} is missing: no ${path}.`);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if (sha256 !== attachment.sha256 || bytes.byteLength !== attachment.size) {
    throw new OpsError(
      `The attachment of brief ${reference} does not match brief.json: ${path} has ${bytes.byteLength} bytes ` +
        `with SHA-256 ${sha256}, brief.json says ${attachment.size} bytes with SHA-256 ${attachment.sha256}. ` +
        `The stored file has been changed or damaged; nothing was written.`,
    );
  }
  return bytes;
}

/** Every newsletter subscriber, newest first (all are read, to sort them). */
export async function readSubscribers(
  store: ObjectStore,
  onProblem?: (problem: InboxRecordError) => void,
): Promise<SubscriberRecord[]> {
  const paths: string[] = [];
  for await (const info of store.list("newsletter/subscribers/")) {
    if (/^newsletter\/subscribers\/[^/]+\.json$/.test(info.path)) paths.push(info.path);
  }
  const records = await mapLimit(paths, READ_CONCURRENCY, async (path) => {
    const bytes = await store.get(path);
    if (bytes === null) return null;
    try {
      return parseSubscriber(path, bytes);
    } catch (error) {
      if (!(error instanceof InboxRecordError)) throw error;
      onProblem?.(error);
      return null;
    }
  });
  return records
    .filter((record) => record !== null)
    .sort((a, b) => (a.subscribedAt < b.subscribedAt ? 1 : a.subscribedAt > b.subscribedAt ? -1 : 0));
}

/**
 * The attached file as a stream, for a download: never whole in memory. Refused before the first
 * byte when it is missing or its stored size is not `brief.json`'s; checked against the SHA-256 as
 * it streams, so a damaged file ends in an error (a broken download), never a complete wrong one.
 */
export async function openAttachment(
  store: ObjectStore,
  brief: StoredBrief,
): Promise<ReadableStream<Uint8Array>> {
  const { attachment, reference } = brief.record;
  if (!attachment) throw new OpsError(`Brief ${reference} has no attachment.`);
  const path = `${brief.folder}/${attachment.filename}`;
  const stream = await store.getStream(path, { maxBytes: attachment.size });
  if (stream === null) throw new OpsError(`The attachment of brief ${reference} is missing: no ${path}.`);
  if (stream.size !== attachment.size) {
    await stream.body.cancel().catch(() => {});
    throw new OpsError(
      `The attachment of brief ${reference} does not match brief.json: ${path} has ${stream.size} bytes.`,
    );
  }
  const hash = createHash("sha256");
  return stream.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        hash.update(chunk);
        controller.enqueue(chunk);
      },
      flush(controller) {
        if (hash.digest("hex") !== attachment.sha256) {
          controller.error(new OpsError(`The attachment of brief ${reference} does not match its SHA-256.`));
        }
      },
    }),
  );
}

/** At most the first `maxBytes` of the attached file (a preview), and whether there was more. */
export async function attachmentStart(
  store: ObjectStore,
  brief: StoredBrief,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; more: boolean } | null> {
  const { attachment } = brief.record;
  if (!attachment) return null;
  const stream = await store.getStream(`${brief.folder}/${attachment.filename}`);
  if (stream === null) return null;
  const reader = stream.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    while (length < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = Buffer.concat(chunks).subarray(0, maxBytes);
  return { bytes, more: attachment.size > bytes.byteLength };
}
