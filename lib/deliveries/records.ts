import { z } from "zod";
import { CHANNEL_NAMES } from "../notify";
import {
  createIfAbsent,
  type ObjectEntry,
  type ObjectInfo,
  type ObjectStore,
  type StoreCallOptions,
} from "../store";
import { MIN_LEASE_MS } from "./lease";
import type { DueRecord, FailedRecord, Target } from "./types";

/**
 * The store's index of what is pending: one small record per retrying channel under
 * `deliveries/due/`, one per channel that gave up under `deliveries/failed/`. Finding what is due
 * or failed lists these folders only, so it costs what is pending, never what is stored.
 */

export const DUE_PREFIX = "deliveries/due/";
export const FAILED_PREFIX = "deliveries/failed/";

/** The shortest lease a claim takes (a short `NOTIFY_TIMEOUT_MS`'s); see `leaseFor`. */
export const LEASE_MS = MIN_LEASE_MS;

const TARGETS = [...CHANNEL_NAMES, "acknowledgment"] as const;

const dueSchema = z.object({
  reference: z.string(),
  folder: z.string(),
  channel: z.enum(TARGETS),
  dueAt: z.iso.datetime(),
  leaseUntil: z.iso.datetime().optional(),
});

const failedSchema = z.object({
  reference: z.string(),
  folder: z.string(),
  channel: z.enum(TARGETS),
  at: z.iso.datetime(),
  error: z.string(),
});

export function duePath(reference: string, target: Target): string {
  return `${DUE_PREFIX}${reference}.${target}.json`;
}

export function failedPath(reference: string, target: Target): string {
  return `${FAILED_PREFIX}${reference}.${target}.json`;
}

const json = (value: unknown) => `${JSON.stringify(value)}\n`;

function parse<T>(schema: z.ZodType<T>, bytes: Uint8Array): T | null {
  try {
    const result = schema.safeParse(JSON.parse(Buffer.from(bytes).toString("utf8")));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}

/** Writes (or moves) a channel's due record: the attempt it names is due at `dueAt`, unclaimed. */
/** A due record as an object to write: the attempt it names is due at `dueAt`, unclaimed. */
export function dueEntry(record: DueRecord): ObjectEntry {
  const unclaimed: DueRecord = { ...record };
  delete unclaimed.leaseUntil;
  return {
    path: duePath(record.reference, record.channel),
    body: json(unclaimed),
    contentType: "application/json",
  };
}

export async function writeDue(
  store: ObjectStore,
  record: DueRecord,
  options?: StoreCallOptions,
): Promise<void> {
  const { path, body, contentType } = dueEntry(record);
  await store.put(path, body, contentType, options);
}

/**
 * What `claimDue` found. A claim carries the version of the due record it wrote: every write that
 * follows the attempt is conditional on the record still being at it (see `Fence`).
 */
export type Claim =
  | { claimed: true; record: DueRecord; version: string }
  | { claimed: false; why: "missing" | "not-due" | "leased"; record: DueRecord | null };

/** The claim's own version, read back: `null` when what is there is not what this claim wrote. */
async function claimedVersion(
  store: ObjectStore,
  path: string,
  body: string,
  options: StoreCallOptions,
): Promise<string | null> {
  const stored = await store.getVersioned(path, options);
  return stored !== null && Buffer.from(body, "utf8").equals(stored.bytes) ? stored.version : null;
}

/**
 * Takes the attempt a due record names, with a conditional write of a lease (`leaseMs`, which
 * covers the longest attempt: `leaseFor`): two instances (or a scheduler and a cron call) racing
 * for it, one wins. Only a due record whose `dueAt` has come (`force`: ops' "Retry now", any time)
 * and whose lease, if any, has run out. A lost race answers `leased`: whoever won makes the attempt.
 */
export async function claimDue(
  store: ObjectStore,
  reference: string,
  target: Target,
  now: Date,
  {
    force = false,
    leaseMs = LEASE_MS,
    ...options
  }: StoreCallOptions & { force?: boolean; leaseMs?: number } = {},
): Promise<Claim> {
  const path = duePath(reference, target);
  const current = await store.getVersioned(path, options);
  const record = current && parse(dueSchema, current.bytes);
  if (!current || !record) return { claimed: false, why: "missing", record: null };
  if (!force && Date.parse(record.dueAt) > now.getTime()) return { claimed: false, why: "not-due", record };
  if (record.leaseUntil !== undefined && Date.parse(record.leaseUntil) > now.getTime()) {
    return { claimed: false, why: "leased", record };
  }
  const leased: DueRecord = { ...record, leaseUntil: new Date(now.getTime() + leaseMs).toISOString() };
  const body = json(leased);
  if (!(await store.putIfVersion(path, body, "application/json", current.version, options))) {
    return { claimed: false, why: "leased", record };
  }
  const version = await claimedVersion(store, path, body, options);
  return version === null
    ? { claimed: false, why: "leased", record }
    : { claimed: true, record: leased, version };
}

/**
 * Makes a due record for an attempt ops asked for now (a failed channel has none) and claims it,
 * unless one exists: then that one is claimed, ahead of its time.
 */
export async function claimNow(
  store: ObjectStore,
  record: Omit<DueRecord, "dueAt" | "leaseUntil">,
  now: Date,
  { leaseMs = LEASE_MS, ...options }: StoreCallOptions & { leaseMs?: number } = {},
): Promise<Claim> {
  const leased: DueRecord = {
    ...record,
    dueAt: now.toISOString(),
    leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
  };
  const path = duePath(record.reference, record.channel);
  const body = json(leased);
  const { created } = await createIfAbsent(store, path, body, "application/json", options);
  if (created) {
    const version = await claimedVersion(store, path, body, options);
    if (version !== null) return { claimed: true, record: leased, version };
    return { claimed: false, why: "leased", record: leased };
  }
  return claimDue(store, record.reference, record.channel, now, { ...options, force: true, leaseMs });
}

/** Every due record, read (an unreadable one is skipped with a warning), soonest first. */
export async function listDue(store: ObjectStore, options: StoreCallOptions = {}): Promise<DueRecord[]> {
  return listRecords(store, DUE_PREFIX, dueSchema, options).then((records) =>
    records.sort((a, b) => a.dueAt.localeCompare(b.dueAt)),
  );
}

/**
 * The due records, looked at again and again by one instance (a long-lived server's scheduler,
 * every 10 s): each look lists them once and reads only those new or changed since the previous
 * look, by what the listing says of each (size and time written: every write of a due record,
 * a claim included, gives it a new time). What a look reads is kept until the record is gone.
 */
export class DueLook {
  private readonly known = new Map<string, { size: number; uploadedAt: number; record: DueRecord }>();

  /** Every due record, soonest first. */
  async due(store: ObjectStore, options: StoreCallOptions = {}): Promise<DueRecord[]> {
    const listed: ObjectInfo[] = [];
    for await (const info of store.list(DUE_PREFIX, options)) listed.push(info);
    const seen = new Set(listed.map((info) => info.path));
    for (const path of this.known.keys()) if (!seen.has(path)) this.known.delete(path);
    const changed = listed.filter((info) => {
      const known = this.known.get(info.path);
      return known?.size !== info.size || known.uploadedAt !== info.uploadedAt.getTime();
    });
    for (let start = 0; start < changed.length; start += READ_CONCURRENCY) {
      await Promise.all(
        changed.slice(start, start + READ_CONCURRENCY).map(async (info) => {
          const record = await readRecord(store, info.path, dueSchema, options);
          if (record === null) this.known.delete(info.path);
          else this.known.set(info.path, { size: info.size, uploadedAt: info.uploadedAt.getTime(), record });
        }),
      );
    }
    return [...this.known.values()]
      .map((known) => known.record)
      .sort((a, b) => a.dueAt.localeCompare(b.dueAt));
  }
}

/** Every failed record, read, newest first. */
export async function listFailed(
  store: ObjectStore,
  options: StoreCallOptions = {},
): Promise<FailedRecord[]> {
  return listRecords(store, FAILED_PREFIX, failedSchema, options).then((records) =>
    records.sort((a, b) => b.at.localeCompare(a.at)),
  );
}

/** Records read at once: enough to hide a remote store's latency. */
const READ_CONCURRENCY = 16;

/** One record, read; `null` when it is gone (done meanwhile) or is not one (with a warning). */
async function readRecord<T>(
  store: ObjectStore,
  path: string,
  schema: z.ZodType<T>,
  options: StoreCallOptions,
): Promise<T | null> {
  const bytes = await store.get(path, options);
  if (bytes === null) return null;
  const record = parse(schema, bytes);
  if (record === null) console.warn(`[delivery] ${path} is not a delivery record; left alone`);
  return record;
}

/** The reference a record's name under `prefix` is for (`<reference>.<target>.json`). */
const referenceOf = (path: string, prefix: string) => path.slice(prefix.length).split(".")[0] ?? "";

/** The records under `prefix`, read, of the names `keep` takes (all by default). */
async function listRecords<T>(
  store: ObjectStore,
  prefix: string,
  schema: z.ZodType<T>,
  options: StoreCallOptions,
  keep: (path: string) => boolean = () => true,
): Promise<T[]> {
  const paths: string[] = [];
  for await (const info of store.list(prefix, options)) if (keep(info.path)) paths.push(info.path);
  const records: T[] = [];
  for (let start = 0; start < paths.length; start += READ_CONCURRENCY) {
    const batch = paths.slice(start, start + READ_CONCURRENCY);
    const read = await Promise.all(batch.map((path) => readRecord(store, path, schema, options)));
    for (const record of read) if (record !== null) records.push(record);
  }
  return records;
}

/** The references with a due record and with a failed one, from the names alone (no record read). */
export async function pendingReferences(
  store: ObjectStore,
  options: StoreCallOptions = {},
): Promise<{ retrying: Set<string>; failed: Set<string> }> {
  const names = async (prefix: string) => {
    const references = new Set<string>();
    for await (const info of store.list(prefix, options)) {
      const reference = referenceOf(info.path, prefix);
      if (reference) references.add(reference);
    }
    return references;
  };
  const [retrying, failed] = await Promise.all([names(DUE_PREFIX), names(FAILED_PREFIX)]);
  return { retrying, failed };
}

/**
 * The folder of each of `references`, from one of its due or failed records (the first listed):
 * for the inbox's status filter, which needs the months of a few pending briefs. A reference whose
 * record is gone meanwhile or unreadable is missing from the answer.
 */
export async function pendingFolders(
  store: ObjectStore,
  references: ReadonlySet<string>,
  options: StoreCallOptions = {},
): Promise<Map<string, string>> {
  const listed = new Set<string>();
  const firstOf = (prefix: string) => (path: string) => {
    const reference = referenceOf(path, prefix);
    if (!references.has(reference) || listed.has(reference)) return false;
    listed.add(reference);
    return true;
  };
  const due = await listRecords(store, DUE_PREFIX, dueSchema, options, firstOf(DUE_PREFIX));
  const failed = await listRecords(store, FAILED_PREFIX, failedSchema, options, firstOf(FAILED_PREFIX));
  const folders = new Map<string, string>();
  for (const { reference, folder } of [...due, ...failed]) {
    if (references.has(reference)) folders.set(reference, folder);
  }
  return folders;
}

/** Records that a channel gave up; `false` when it had already (then nobody is told again). */
export async function markFailed(
  store: ObjectStore,
  record: FailedRecord,
  options: StoreCallOptions = {},
): Promise<boolean> {
  const { created } = await createIfAbsent(
    store,
    failedPath(record.reference, record.channel),
    json(record),
    "application/json",
    options,
  );
  return created;
}

/** Removes a brief's due and failed records, every target's (erasing it, or it was delivered). */
export async function forgetDeliveries(
  store: ObjectStore,
  reference: string,
  options: StoreCallOptions = {},
): Promise<void> {
  await Promise.all(
    TARGETS.flatMap((target) => [
      store.delete(duePath(reference, target), options),
      store.delete(failedPath(reference, target), options),
    ]),
  );
}
