import { z } from "zod";
import { type BriefRecord, briefRecordSchema, type Folder } from "../briefs";
import { CHANNEL_NAMES } from "../notify";
import { type Delivery } from "../briefs";
import { InboxRecordError } from "./errors";
import { check, parseJson } from "./parse";
import { parseRecord } from "../newsletter/subscribers";
import type { SubscriberRecord } from "../newsletter/subscribers";
import type { BriefState } from "./state";

/** A brief as the ops tool reads it from the inbox. */
export interface StoredBrief {
  /** `briefs` or `spam` (caught by the honeypot). */
  kind: Folder;
  /** Where it is stored, e.g. `briefs/2026/11/22/K7QM-3XD9-PTWA-84HC`. */
  folder: string;
  record: BriefRecord;
  /** `delivery.json`; `null` when there is none (notifications never recorded, or spam). */
  delivery: Delivery | null;
  /** `state.json`: status and notes (a brief without one is `new`). */
  state: BriefState;
}

const outcomeSchema = z.object({ ok: z.boolean(), at: z.string(), error: z.string().optional() });
const acknowledgmentSchema = outcomeSchema.extend({ suppressed: z.literal(true).optional() });

/** `brief.json`, checked against the record's one schema (lenient where old records differ). */
export function parseBriefRecord(path: string, bytes: Uint8Array): BriefRecord {
  return check(path, briefRecordSchema, parseJson(path, bytes), "a brief record") as BriefRecord;
}

/** `delivery.json`: the known channels' outcomes and the acknowledgment's; anything else is left out. */
export function parseDelivery(path: string, bytes: Uint8Array): Delivery {
  const value = parseJson(path, bytes);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InboxRecordError(`${path} is not a delivery record`);
  }
  const delivery: Delivery = {};
  for (const name of CHANNEL_NAMES) {
    const outcome = (value as Record<string, unknown>)[name];
    if (outcome !== undefined) delivery[name] = check(path, outcomeSchema, outcome, "a delivery record");
  }
  const acknowledgment = (value as Record<string, unknown>).acknowledgment;
  if (acknowledgment !== undefined) {
    delivery.acknowledgment = check(path, acknowledgmentSchema, acknowledgment, "a delivery record");
  }
  return delivery;
}

/**
 * A subscriber record, read by the newsletter's own parser (a record from before statuses existed
 * reads as confirmed), without the internal `revision`.
 */
export function parseSubscriber(path: string, bytes: Uint8Array): SubscriberRecord {
  let record: SubscriberRecord;
  try {
    record = parseRecord(path, bytes);
  } catch {
    throw new InboxRecordError(`${path} is not a subscriber record`);
  }
  const shown: SubscriberRecord = { ...record };
  delete shown.revision;
  return shown;
}
