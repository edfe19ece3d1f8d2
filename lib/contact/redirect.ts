import { type ApiError } from "../http/errors";
import { BRIEF_FORM_ORDER, BRIEF_HINTS, type BriefFormField } from "../schemas/brief";

/**
 * Where a browser without JavaScript goes after posting the contact form. Only the error code,
 * the names of the invalid fields and the wait are carried in the URL, never what the visitor
 * typed: URLs end up in logs and histories.
 */

export function thankYouLocation(reference: string): string {
  return `/thank-you?reference=${encodeURIComponent(reference)}`;
}

export function contactFormLocation(error: ApiError): string {
  const params = new URLSearchParams({ error: error.code });
  const invalid = BRIEF_FORM_ORDER.filter((field) => error.fields?.[field]);
  if (invalid.length > 0) params.set("invalid", invalid.join(","));
  const retry = error.headers["Retry-After"];
  if (retry) params.set("retry", retry);
  return `/contact?${params.toString()}#contact`;
}

export interface ContactFormReturn {
  code: string;
  retryAfter: number | null;
  errors: Partial<Record<BriefFormField, string>>;
}

/** Reads the query a failed no-JavaScript submission was sent back with; `null` when there is none. */
export function readContactFormReturn(
  query: Record<string, string | string[] | undefined>,
): ContactFormReturn | null {
  const code = typeof query.error === "string" ? query.error : null;
  if (!code || !/^[a-z_]{1,40}$/.test(code)) return null;
  const names = typeof query.invalid === "string" ? query.invalid.split(",") : [];
  const errors: ContactFormReturn["errors"] = {};
  for (const field of BRIEF_FORM_ORDER) {
    if (!names.includes(field)) continue;
    errors[field] =
      field === "consent"
        ? "Please agree to be contacted about your brief."
        : field === "brief"
          ? `This file could not be accepted. ${BRIEF_HINTS.brief}`
          : `Check this field. ${BRIEF_HINTS[field]}`;
  }
  const retry = Number(query.retry);
  return { code, retryAfter: Number.isInteger(retry) && retry > 0 ? retry : null, errors };
}
