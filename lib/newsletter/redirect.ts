import type { ApiError } from "../http/errors";
import type { SubscribeOutcome } from "./consent";
import { LINK_MESSAGES } from "./links";

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

/** Why a link was refused, as the pages say it: a key of `LINK_MESSAGES`. */
export type LinkProblem = keyof typeof LINK_MESSAGES;

/**
 * Where a browser without JavaScript goes after the confirm or unsubscribe page's button: back to
 * that page with the outcome, or the error code (and, for a refused link, why). The token is never
 * put back in the URL.
 */
export function linkPageLocation(page: "confirm" | "unsubscribe", outcome: string | ApiError): string {
  const path = `/newsletter/${page}`;
  if (typeof outcome === "string") return `${path}?status=${outcome}`;
  const params = new URLSearchParams({ error: outcome.code });
  const message = outcome.fields?.token;
  const problem = (Object.keys(LINK_MESSAGES) as LinkProblem[]).find((key) => LINK_MESSAGES[key] === message);
  if (problem) params.set("link", problem);
  const retry = outcome.headers["Retry-After"];
  if (retry) params.set("retry", retry);
  return `${path}?${params.toString()}`;
}
