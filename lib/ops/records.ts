import { type BriefRecord, briefRecordSchema, type Folder } from "../briefs";
import { type Delivery, DeliveryRecordError, parseDeliveryRecord } from "../briefs";
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

/** `brief.json`, checked against the record's one schema (lenient where old records differ). */
export function parseBriefRecord(path: string, bytes: Uint8Array): BriefRecord {
  return check(path, briefRecordSchema, parseJson(path, bytes), "a brief record") as BriefRecord;
}

/** `delivery.json` (lib/briefs reads it: part 1's records too); `InboxRecordError` naming the path when it is not one. */
export function parseDelivery(path: string, bytes: Uint8Array): Delivery {
  try {
    return parseDeliveryRecord(parseJson(path, bytes));
  } catch (error) {
    if (error instanceof DeliveryRecordError) throw new InboxRecordError(`${path} is not a delivery record`);
    throw error;
  }
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
