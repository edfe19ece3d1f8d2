import { z } from "zod";
import { SINGLE_LINE_CONTROL } from "../format";

// In the browser zod must not probe for `new Function`: the site's CSP allows no eval, and the
// probe, though caught, is reported as a CSP violation. (The server keeps zod's faster parsers.)
if (typeof window !== "undefined") z.config({ jitless: true });

/** Length in Unicode code points, as the contract counts it (an emoji is one, not two). */
export function codePoints(value: string): number {
  let count = value.length;
  // Each surrogate pair is one code point held in two UTF-16 units.
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

// The same, less tab, line feed and carriage return.
const CONTROL_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

interface TextRules {
  label: string;
  min?: number;
  max: number;
  multiline?: boolean;
}

/**
 * A text field's rules as JSON Schema keywords, for the API's OpenAPI document: the checks below
 * are a `superRefine`, which JSON Schema output cannot see. Metadata only; it validates nothing.
 * JSON Schema also counts lengths in code points, but before trimming, so the description says so.
 */
function textMeta({ min = 0, max, multiline = false }: TextRules) {
  const length = min > 0 ? `${min} to ${max} characters` : `at most ${max} characters`;
  const lines = multiline
    ? "line breaks and tabs allowed, no other control characters"
    : "one line, no control characters";
  return {
    ...(min > 0 ? { minLength: min } : {}),
    maxLength: max,
    description: `Trimmed first, then ${length} (Unicode code points); ${lines}.`,
  };
}

/** A trimmed text field with code-point lengths and a control-character rule. */
export function text(rules: TextRules) {
  const { label, min = 0, max, multiline = false } = rules;
  return z
    .string({ error: `${label} is required.` })
    .trim()
    .superRefine((value, ctx) => {
      const length = codePoints(value);
      if (min > 0 && length === 0) {
        ctx.addIssue({ code: "custom", message: `${label} is required.` });
      } else if (length < min) {
        ctx.addIssue({ code: "custom", message: `${label} must be at least ${min} characters.` });
      } else if (length > max) {
        ctx.addIssue({ code: "custom", message: `${label} must be at most ${max} characters.` });
      } else if ((multiline ? CONTROL_BUT_LINE_BREAKS : SINGLE_LINE_CONTROL).test(value)) {
        ctx.addIssue({
          code: "custom",
          message: multiline
            ? `${label} contains control characters.`
            : `${label} must be a single line without control characters.`,
        });
      }
    })
    .meta(textMeta(rules));
}

/** An optional text field: absent, or empty after trimming, means not given. */
export function optionalText(rules: TextRules) {
  const { description } = textMeta(rules);
  return z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    text(rules)
      .meta({ description: `Optional: empty counts as absent. ${description}` })
      .optional(),
  );
}

export const EMAIL_MAX_LENGTH = 254;

/** zod's address format, built once: a schema costs more to build than to run. */
const EMAIL_FORMAT = z.email();

export const email = z
  .string({ error: "Email is required." })
  .trim()
  .superRefine((value, ctx) => {
    if (value === "") ctx.addIssue({ code: "custom", message: "Email is required." });
    else if (codePoints(value) > EMAIL_MAX_LENGTH)
      ctx.addIssue({ code: "custom", message: `Email must be at most ${EMAIL_MAX_LENGTH} characters.` });
    else if (!EMAIL_FORMAT.safeParse(value).success)
      ctx.addIssue({ code: "custom", message: "Enter a valid email address, like name@example.com." });
  })
  .meta({
    format: "email",
    minLength: 1,
    maxLength: EMAIL_MAX_LENGTH,
    description: `Trimmed first, then a valid address of at most ${EMAIL_MAX_LENGTH} characters.`,
  });

/** Turns a failed parse into the contract's `fields` map: one message per field, every field at once. */
export function fieldMessages(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "_");
    fields[field] ??= issue.message;
  }
  return fields;
}
