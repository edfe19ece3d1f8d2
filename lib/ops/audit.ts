import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { ObjectStore, StoreCallOptions } from "../store";
import { InboxRecordError } from "./errors";
import { check, parseJson } from "./parse";
import { mapLimit } from "./reader";

/**
 * The audit log: one object per event, `audit/YYYY/MM/DD/<time>-<random>.json`, created with
 * create-if-absent and never changed, so no two writers can overwrite each other's entry. The
 * web inbox and the ops tool write the same entries; `actor` is the signed-in address (the tool:
 * `--by`). An erase or a person's export records the address's SHA-256 (and the counts), never
 * the address itself; a retention run, how many briefs and spam entries it erased; an export of
 * subscribers, its filters and how many it held.
 */

export const AUDIT_ACTIONS = [
  "sign-in",
  "sign-out",
  "download",
  "export",
  "status",
  "note",
  "not-spam",
  "redeliver",
  "erase",
  "export-person",
  "export-subscribers",
  "retention",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an action was done to: a brief's reference, an export's filters, an erase's counts. */
export type AuditTarget = string | Record<string, string | number | null> | null;

export interface AuditEntry {
  /** ISO 8601, UTC. */
  at: string;
  actor: string;
  action: AuditAction;
  target: AuditTarget;
}

const entrySchema = z.object({
  at: z.iso.datetime(),
  actor: z.string(),
  action: z.enum(AUDIT_ACTIONS),
  target: z.union([z.string(), z.record(z.string(), z.union([z.string(), z.number(), z.null()])), z.null()]),
});

/** `HHMMSSmmm`, so that one day's entries list in the order they happened. */
function timeKey(at: Date): string {
  return at.toISOString().slice(11, 23).replace(/[:.]/g, "");
}

export function auditPath(at: Date): string {
  const day = at.toISOString().slice(0, 10).replaceAll("-", "/");
  return `audit/${day}/${timeKey(at)}-${randomBytes(6).toString("hex")}.json`;
}

/** Records one event. Throws `StoreUnavailableError` when the store cannot be written. */
export async function recordAudit(
  store: ObjectStore,
  event: Omit<AuditEntry, "at">,
  now = new Date(),
  options?: StoreCallOptions,
): Promise<AuditEntry> {
  const entry: AuditEntry = { at: now.toISOString(), ...event };
  // A random name never meets an existing object; `create` makes sure of it.
  await store.create(auditPath(now), `${JSON.stringify(entry)}\n`, "application/json", options);
  return entry;
}

/** How many entries `readAudit` answers unless asked for fewer. */
export const AUDIT_PAGE_SIZE = 200;

/** The newest entries first, at most `limit`; an entry that is not one is reported and left out. */
export async function readAudit(
  store: ObjectStore,
  {
    limit = AUDIT_PAGE_SIZE,
    onProblem,
  }: { limit?: number; onProblem?: (problem: InboxRecordError) => void } = {},
): Promise<AuditEntry[]> {
  const paths: string[] = [];
  for await (const info of store.list("audit/")) {
    if (/^audit\/\d{4}\/\d{2}\/\d{2}\/[0-9]{9}-[0-9a-f]+\.json$/.test(info.path)) paths.push(info.path);
  }
  paths.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const entries = await mapLimit(paths.slice(0, limit), 8, async (path) => {
    const bytes = await store.get(path);
    if (bytes === null) return null;
    try {
      return check(path, entrySchema, parseJson(path, bytes), "an audit entry") as AuditEntry;
    } catch (error) {
      if (!(error instanceof InboxRecordError)) throw error;
      onProblem?.(error);
      return null;
    }
  });
  return entries.filter((entry) => entry !== null);
}

/** A target as one line: `K7QM-…`, or `key=value` pairs. */
export function auditTargetText(target: AuditTarget): string {
  if (target === null) return "—";
  if (typeof target === "string") return target;
  return Object.entries(target)
    .map(([key, value]) => `${key}=${value ?? ""}`)
    .join(" ");
}
