import { csvRecord } from "./csv";
import { budgetLabel, deliveryStatus, projectTypeLabel, timelineLabel } from "./labels";
import type { StoredBrief } from "./records";

/** One brief as `export` writes it: the same columns for CSV and JSON. */
export interface ExportRow {
  reference: string;
  receivedAt: string;
  name: string;
  email: string;
  company: string | null;
  role: string | null;
  projectType: string;
  budget: string;
  timeline: string;
  description: string;
  attachmentName: string | null;
  attachmentType: string | null;
  attachmentSize: number | null;
  attachmentSha256: string | null;
  verification: string;
  delivery: string;
  status: string;
  /** Where the lead came from: `attribution`'s values, empty where the brief kept none. */
  page: string | null;
  referrer: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
}

export const EXPORT_COLUMNS: readonly (keyof ExportRow)[] = [
  "reference",
  "receivedAt",
  "name",
  "email",
  "company",
  "role",
  "projectType",
  "budget",
  "timeline",
  "description",
  "attachmentName",
  "attachmentType",
  "attachmentSize",
  "attachmentSha256",
  "verification",
  "delivery",
  "status",
  "page",
  "referrer",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
];

/** Options as their labels (what ops read on the form), delivery as in the table. */
export function exportRow(brief: StoredBrief): ExportRow {
  const { record } = brief;
  const attribution = record.attribution ?? null;
  const utm = attribution?.utm;
  return {
    reference: record.reference,
    receivedAt: record.receivedAt,
    name: record.name,
    email: record.email,
    company: record.company,
    role: record.role,
    projectType: projectTypeLabel(record.projectType),
    budget: budgetLabel(record.budget),
    timeline: timelineLabel(record.timeline),
    description: record.description,
    attachmentName: record.attachment?.originalName ?? null,
    attachmentType: record.attachment?.contentType ?? null,
    attachmentSize: record.attachment?.size ?? null,
    attachmentSha256: record.attachment?.sha256 ?? null,
    verification: record.verification,
    delivery: deliveryStatus(brief),
    status: brief.state.status,
    page: attribution?.page ?? null,
    referrer: attribution?.referrer ?? null,
    utm_source: utm?.source ?? null,
    utm_medium: utm?.medium ?? null,
    utm_campaign: utm?.campaign ?? null,
    utm_term: utm?.term ?? null,
    utm_content: utm?.content ?? null,
  };
}

/**
 * The briefs' CSV, as the ops tool's `export --format csv` and the web inbox's export both write
 * it: the header, then one record per brief, in `EXPORT_COLUMNS`' order.
 */
export const EXPORT_CSV_HEADER = csvRecord(EXPORT_COLUMNS);

export function exportCsvRecord(brief: StoredBrief): string {
  const row = exportRow(brief);
  return csvRecord(EXPORT_COLUMNS.map((column) => row[column]));
}
