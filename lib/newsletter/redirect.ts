import type { ApiError } from "../http/errors";
import type { SubscribeOutcome } from "./subscribers";

/**
 * Where a browser without JavaScript goes after posting the newsletter form: a page that shows
 * the outcome. Only the outcome, the error code and the invalid field names travel in the URL.
 */
export function newsletterLocation(outcome: SubscribeOutcome | ApiError): string {
  if (typeof outcome === "string") return `/newsletter?status=${outcome}`;
  const params = new URLSearchParams({ error: outcome.code });
  const invalid = ["email", "topics"].filter((field) => outcome.fields?.[field]);
  if (invalid.length > 0) params.set("invalid", invalid.join(","));
  const retry = outcome.headers["Retry-After"];
  if (retry) params.set("retry", retry);
  return `/newsletter?${params.toString()}`;
}
