import type { BriefRecord } from "../briefs";
import { BIDI_CONTROL_CLASS } from "../format";

/** The webhook's JSON body: the contract's `brief.received` event. */
export interface BriefReceivedEvent {
  type: "brief.received";
  reference: string;
  receivedAt: string;
  /** How the request's human check went: `passed`, `unavailable` (not checked) or `off`. */
  verification: BriefRecord["verification"];
  /** Where the lead came from (page, referrer, utm), as `brief.json` keeps it; `null` when unknown. */
  attribution: BriefRecord["attribution"];
  brief: Pick<
    BriefRecord,
    "name" | "email" | "company" | "role" | "projectType" | "budget" | "timeline" | "description" | "consent"
  >;
  attachment: { filename: string; contentType: string; size: number; sha256: string } | null;
}

/**
 * Built field by field from the stored record, so nothing stored but not meant for the receiver
 * (the hashed client address, the visitor's original file name) leaks into it by accident.
 */
export function briefReceivedEvent(record: BriefRecord): BriefReceivedEvent {
  const { attachment } = record;
  return {
    type: "brief.received",
    reference: record.reference,
    receivedAt: record.receivedAt,
    verification: record.verification,
    attribution: record.attribution ?? null,
    brief: {
      name: record.name,
      email: record.email,
      company: record.company,
      role: record.role,
      projectType: record.projectType,
      budget: record.budget,
      timeline: record.timeline,
      description: record.description,
      consent: record.consent,
    },
    attachment: attachment && {
      filename: attachment.filename,
      contentType: attachment.contentType,
      size: attachment.size,
      sha256: attachment.sha256,
    },
  };
}

const BIDI_CONTROLS = new RegExp(`[${BIDI_CONTROL_CLASS}]`, "g");

/**
 * The event as the request body. The values stay exactly what `brief.json` holds (the receiver gets
 * data, not a rendering), but each bidirectional control is written as its JSON escape (`\u202e`),
 * so the body itself, read in a log or a request inspector, never shows a reordered line.
 */
export function briefReceivedBody(record: BriefRecord): string {
  return JSON.stringify(briefReceivedEvent(record)).replace(
    BIDI_CONTROLS,
    (control) => `\\u${control.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
