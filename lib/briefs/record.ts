import { z } from "zod";
import type { FailureDetails } from "../notify/failure";
import { type Attribution, attributionRecordSchema } from "../schemas/attribution";
import type { Budget, ProjectType, Timeline } from "../schemas/brief";
import { type Verification, VERIFICATIONS } from "../verification/types";

/**
 * The brief's record as the inbox keeps it (`brief.json`), and where it lives in the store's
 * layout. Written by `saveBrief`, read by the ops side, described by the OpenAPI document.
 */

/** What `brief.json` says about the attached file. */
export interface AttachmentRecord {
  /** The stored object's name, e.g. `attachment.pdf`. */
  filename: string;
  /** The visitor's file name, cleaned; metadata only. */
  originalName: string;
  contentType: string;
  size: number;
  sha256: string;
}

export interface ClientRecord {
  /** Salted hash of the client address; `null` when the address is unknown. */
  ipHash: string | null;
  userAgent: string | null;
  origin: string | null;
}

/** What caught a spam entry: the honeypot, a keyword (`SPAM_KEYWORDS`) or a domain (`SPAM_EMAIL_DOMAINS`). */
export const SPAM_REASONS = ["honeypot", "keyword", "domain"] as const;

export type SpamReason = (typeof SPAM_REASONS)[number];

/** `brief.json`'s `spam`: why the entry is under `spam/`, and the rule's word or domain as configured. */
export interface SpamVerdict {
  reason: SpamReason;
  match?: string;
}

/** The stored form of a brief: `brief.json`. Optional fields the visitor left out are `null`. */
export interface BriefRecord {
  reference: string;
  /** ISO 8601, UTC. */
  receivedAt: string;
  name: string;
  email: string;
  company: string | null;
  role: string | null;
  projectType: ProjectType;
  budget: Budget;
  timeline: Timeline;
  description: string;
  consent: true;
  attachment: AttachmentRecord | null;
  /** How the request's human check went: `passed`, `unavailable` (not checked) or `off`. */
  verification: Verification;
  client: ClientRecord;
  /** Where the lead came from (page, referrer, utm); `null` when the form sent none of it. */
  attribution: Attribution | null;
  /**
   * Spam entries only: what caught it. Absent on briefs, and on spam entries stored before the
   * rules existed, which the honeypot caught (`spamVerdict` reads them so).
   */
  spam?: SpamVerdict;
}

const nullableText = z.string().nullable();

/**
 * `brief.json` as a reader takes it: the same fields as `BriefRecord`, checked, because the ops
 * side prints and re-sends what it reads. Lenient where old records differ: an option renamed
 * since still reads (any string; it shows unlabelled), and a record written before verification
 * existed had no check configured, which is what `off` says.
 */
export const briefRecordSchema = z.object({
  reference: z.string(),
  receivedAt: z.iso.datetime(),
  name: z.string(),
  email: z.string(),
  company: nullableText,
  role: nullableText,
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
  verification: z.enum(VERIFICATIONS as [Verification, ...Verification[]]).default("off"),
  client: z.object({ ipHash: nullableText, userAgent: nullableText, origin: nullableText }),
  attribution: attributionRecordSchema,
  spam: z
    .object({ reason: z.enum(SPAM_REASONS), match: z.string().optional() })
    .optional()
    .meta({
      description:
        "Spam entries only: `reason` `honeypot`, `keyword` or `domain`, and `match`, the configured keyword or domain that matched.",
    }),
});

/** Why an entry of `folder` is spam: its record's `spam`, or the honeypot for one written before that field; `null` for a brief. */
export function spamVerdict(folder: Folder, record: Pick<BriefRecord, "spam">): SpamVerdict | null {
  if (folder !== "spam") return null;
  return record.spam ?? { reason: "honeypot" };
}

/**
 * The schema and the writer's interface describe one record: this fails to compile when a field
 * is added to, or dropped from, only one of them.
 */
type SameKeys<A, B> = [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never] ? true : false;
const recordMatchesSchema: SameKeys<BriefRecord, z.output<typeof briefRecordSchema>> = true;
const attachmentMatchesSchema: SameKeys<
  AttachmentRecord,
  NonNullable<z.output<typeof briefRecordSchema>["attachment"]>
> = true;
void recordMatchesSchema;
void attachmentMatchesSchema;

/** Honeypot catches live apart from real briefs, under the same layout. */
export type Folder = "briefs" | "spam";

/** `briefs/YYYY/MM/DD/<reference>` for the UTC day of receipt. */
export function briefFolder(folder: Folder, reference: string, receivedAt: Date): string {
  const day = receivedAt.toISOString().slice(0, 10).replaceAll("-", "/");
  return `${folder}/${day}/${reference}`;
}

/**
 * How the acknowledgment to the submitter ended, `delivery.json`'s `acknowledgment`. `suppressed`:
 * deliberately not sent (another went to the same address within 10 minutes, or verification did
 * not pass); `error` says why, and `redeliver --acknowledgment` never sends it.
 */
export interface AcknowledgmentOutcome {
  ok: boolean;
  /** ISO 8601 UTC: when the outcome was known. */
  at: string;
  /** How long the attempt took. */
  ms?: number;
  /** Why it was not sent, in one line; absent on success. */
  error?: string;
  /** On success: the SMTP reply code, when the server gave one. */
  status?: number;
  suppressed?: true;
  /** On failure (not suppression): the SMTP reply code, and whether another attempt may help. */
  failure?: FailureDetails;
}
