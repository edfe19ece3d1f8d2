import { z } from "zod";
import { BIDI_CONTROL_CLASS } from "../format";
import { codePoints } from "./text";
import { UTM_KEYS, type UtmKey } from "./utm";

/**
 * Where a lead came from: the page the form was sent from, the visit's first external referrer and
 * its first `utm_*` parameters. Shared by the forms (in the browser) and the routes, so it imports
 * nothing server-only. Never a reason to refuse a request: a value that breaks its rule is dropped.
 */

/** The form fields, each with its longest value in code points. */
export const ATTRIBUTION_FIELDS = {
  page: 500,
  referrer: 500,
  utm_source: 200,
  utm_medium: 200,
  utm_campaign: 200,
  utm_term: 200,
  utm_content: 200,
} as const;

export type AttributionField = keyof typeof ATTRIBUTION_FIELDS;

export { UTM_KEYS, type UtmKey } from "./utm";

/** What `brief.json` keeps: only the keys that were sent and kept. */
export interface Attribution {
  page?: string;
  referrer?: string;
  utm?: Partial<Record<UtmKey, string>>;
}

// C0 controls, DEL, C1 controls and Unicode's line and paragraph separators (every value is one
// line), and the bidirectional controls (it reads as sent).
const CONTROL = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI_CONTROL_CLASS}]`);

/** `value` trimmed when it is a non-empty single line of at most `max` code points, else `undefined`. */
export function attributionText(value: unknown, max: number): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (text === "" || CONTROL.test(text) || codePoints(text) > max) return undefined;
  return text;
}

/**
 * One optional field: kept when it follows its rule, dropped (never refused) otherwise. The
 * metadata describes the rule for the API's OpenAPI document.
 */
export function attributionField(max: number, description: string) {
  return z
    .string()
    .transform((value) => attributionText(value, max))
    .catch(undefined)
    .optional()
    .meta({
      maxLength: max,
      description: `Optional. ${description} One line of at most ${max} characters (Unicode code points) after trimming; a value that breaks this rule is dropped, never refused.`,
    });
}

const UTM_DESCRIPTION = (key: UtmKey) =>
  `The visit's first \`utm_${key}\` (first touch, kept for the visit in \`sessionStorage\`).`;

/** The contact form's attribution fields. */
export const attributionFormSchema = z.object({
  page: attributionField(500, "The path and query of the page the form was sent from."),
  referrer: attributionField(500, "The visit's first external referrer."),
  utm_source: attributionField(200, UTM_DESCRIPTION("source")),
  utm_medium: attributionField(200, UTM_DESCRIPTION("medium")),
  utm_campaign: attributionField(200, UTM_DESCRIPTION("campaign")),
  utm_term: attributionField(200, UTM_DESCRIPTION("term")),
  utm_content: attributionField(200, UTM_DESCRIPTION("content")),
});

/**
 * The record's `attribution` from the form's fields (each already as given, or absent): the valid
 * ones, grouped as `brief.json` keeps them; `null` when none is left.
 */
export function attributionFrom(fields: Partial<Record<AttributionField, unknown>>): Attribution | null {
  const kept = (field: AttributionField) => attributionText(fields[field], ATTRIBUTION_FIELDS[field]);
  const attribution: Attribution = {};
  const page = kept("page");
  const referrer = kept("referrer");
  if (page !== undefined) attribution.page = page;
  if (referrer !== undefined) attribution.referrer = referrer;
  const utm: Partial<Record<UtmKey, string>> = {};
  for (const key of UTM_KEYS) {
    const value = kept(`utm_${key}`);
    if (value !== undefined) utm[key] = value;
  }
  if (Object.keys(utm).length > 0) attribution.utm = utm;
  return Object.keys(attribution).length > 0 ? attribution : null;
}

/** `brief.json`'s `attribution` as a reader takes it (a record from before it existed has none). */
export const attributionRecordSchema = z
  .object({
    page: z.string().optional(),
    referrer: z.string().optional(),
    utm: z
      .object({
        source: z.string().optional(),
        medium: z.string().optional(),
        campaign: z.string().optional(),
        term: z.string().optional(),
        content: z.string().optional(),
      })
      .optional(),
  })
  .nullable()
  .default(null)
  .meta({
    description:
      "Where the lead came from: `null`, or the keys that were sent and kept among `page`, `referrer` and `utm` (`source`, `medium`, `campaign`, `term`, `content`).",
  });
