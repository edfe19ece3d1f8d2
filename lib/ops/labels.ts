import type { AcknowledgmentOutcome, SpamVerdict } from "../briefs";
import { CHANNEL_NAMES } from "../notify";
import { BUDGETS, PROJECT_TYPES, TIMELINES } from "../schemas/brief";
import type { Verification } from "../verification/types";
import type { StoredBrief } from "./records";

/**
 * A brief's values in ops' words, shared by the inbox's pages, the ops tool's tables and the
 * export: the form's labels for its options, how notifying went, times in UTC.
 */

function label(labels: Record<string, string>, value: string): string {
  return labels[value] ?? value;
}

export const projectTypeLabel = (value: string) => label(PROJECT_TYPES, value);
export const budgetLabel = (value: string) => label(BUDGETS, value);
export const timelineLabel = (value: string) => label(TIMELINES, value);

const VERIFICATION_WORDS: Record<Verification, string> = {
  passed: "Passed the human check",
  unavailable: "Could not be checked (the human check did not answer)",
  off: "Not checked: human verification is off",
};

/** How a brief's human check went, in words rather than its stored value. */
export function verificationLabel(value: Verification): string {
  return VERIFICATION_WORDS[value] ?? value;
}

/**
 * One line on how notifying ops went: `webhook ✓ email ✗` (`↻`: retrying on the schedule); `none configured` when no channel was
 * set up at the time; `pending` when there is no `delivery.json` (the notifications never ended,
 * or are still running); `not sent (spam)` for what the honeypot caught.
 */
export function deliveryStatus(brief: Pick<StoredBrief, "kind" | "delivery">): string {
  if (brief.kind === "spam") return "not sent (spam)";
  if (brief.delivery === null) return "pending";
  const parts = CHANNEL_NAMES.flatMap((name) => {
    const outcome = brief.delivery?.[name];
    if (!outcome) return [];
    return [`${name} ${{ delivered: "✓", retrying: "↻", failed: "✗" }[outcome.state]}`];
  });
  return parts.length > 0 ? parts.join(" ") : "none configured";
}

/**
 * What caught a spam entry, in ops' words: `the honeypot`, `the keyword "casino"` or
 * `the domain spam.example` (the rule as configured when it caught the entry).
 */
export function spamReasonText(verdict: SpamVerdict): string {
  switch (verdict.reason) {
    case "honeypot":
      return "the honeypot";
    case "keyword":
      return verdict.match === undefined ? "a keyword" : `the keyword "${verdict.match}"`;
    case "domain":
      return verdict.match === undefined ? "a sender domain" : `the domain ${verdict.match}`;
  }
}

/**
 * How the acknowledgment to a brief's sender went, in ops' words: `sent`, `suppressed` (held back
 * on purpose: the 10-minute window, or verification that did not pass) or `failed`, with the
 * reason `delivery.json` records for the last two.
 */
export function acknowledgmentResult(outcome: AcknowledgmentOutcome & { state?: string }): {
  result: "sent" | "suppressed" | "retrying" | "failed";
  reason: string | null;
} {
  if (outcome.ok) return { result: "sent", reason: null };
  if (outcome.state === "retrying")
    return { result: "retrying", reason: outcome.error ?? "no reason recorded" };
  return {
    result: outcome.suppressed ? "suppressed" : "failed",
    reason: outcome.error ?? "no reason recorded",
  };
}

/** `2026-11-22 10:00` (UTC) from an ISO 8601 time; `seconds` adds `:05`. */
export function utcTime(iso: string, seconds = false): string {
  return iso.slice(0, seconds ? 19 : 16).replace("T", " ");
}
