import { z } from "zod";
import type { BriefRecord, Folder } from "../briefs";
import { CHANNEL_NAMES, type Delivery } from "../notify";
import { InboxRecordError } from "./errors";
import { parseRecord } from "../newsletter/subscribers";
import type { SubscriberRecord } from "../newsletter/subscribers";
import { VERIFICATIONS } from "../verification";
import type { BriefState } from "./state";

/**
 * A record's human check. One written before verification existed has none: no check was
 * configured then, which is what `off` says.
 */
const verificationSchema = z.enum(VERIFICATIONS as [string, ...string[]]);

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

const nullableText = z.string().nullable();

/**
 * `brief.json` as `saveBrief` writes it. Checked, because the tool prints and re-sends what it
 * reads: a record that is not a brief is reported, never half-shown or half-sent.
 */
const briefRecordSchema = z.object({
  reference: z.string(),
  receivedAt: z.iso.datetime(),
  name: z.string(),
  email: z.string(),
  company: nullableText,
  role: nullableText,
  // Any string: a record from before an option was renamed still reads (its value shows unlabelled).
  projectType: z.string(),
  budget: z.string(),
  timeline: z.string(),
  description: z.string(),
  consent: z.literal(true),
  attachment: z
    .object({
      // Joined to the folder to fetch the file: a record must not point anywhere else.
      filename: z.string().regex(/^attachment\.[a-z0-9]+$/),
      originalName: z.string(),
      contentType: z.string(),
      size: z.number().int().nonnegative(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
    })
    .nullable(),
  verification: verificationSchema.default("off"),
  client: z.object({ ipHash: nullableText, userAgent: nullableText, origin: nullableText }),
});

const outcomeSchema = z.object({ ok: z.boolean(), at: z.string(), error: z.string().optional() });
const acknowledgmentSchema = outcomeSchema.extend({ suppressed: z.literal(true).optional() });

export function parseJson(path: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw new InboxRecordError(`${path} is not valid JSON`);
  }
}

export function check<T>(path: string, schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` (${issue.path.join(".")})` : "";
  throw new InboxRecordError(`${path} is not ${what}${where}`);
}

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
