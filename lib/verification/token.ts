import type { MultipartForm } from "../http/body";
import { TOKEN_FIELD } from "./types";

export { TOKEN_FIELD };

/**
 * The token from a multipart form: one text part. Absent, empty, sent twice, as a file or cut short
 * is no token, and is refused as such by the check.
 */
export function tokenFromMultipart(form: MultipartForm): string | null {
  if (form.files.has(TOKEN_FIELD)) return null;
  const values = form.fields.get(TOKEN_FIELD) ?? [];
  const [only] = values;
  if (values.length !== 1 || !only || only.truncated || only.invalidEncoding) return null;
  return only.value === "" ? null : only.value;
}

/** The token from a JSON object body (`{ "cf-turnstile-response": "..." }`); anything but a string is none. */
export function tokenFromJson(body: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const token = (value as Record<string, unknown>)[TOKEN_FIELD];
  return typeof token === "string" && token !== "" ? token : null;
}

/** The token from a form-encoded body (a form posted by the browser itself). */
export function tokenFromFormEncoded(body: string): string | null {
  const values = new URLSearchParams(body).getAll(TOKEN_FIELD);
  return values.length === 1 && values[0] ? values[0] : null;
}
