import { formatBytes } from "../format";
import type { SubscriberRecord } from "../newsletter/subscribers";
import type { AcknowledgmentOutcome } from "../briefs";
import { CHANNEL_NAMES, type Delivery } from "../notify";
import { BUDGETS, PROJECT_TYPES, TIMELINES } from "../schemas/brief";
import type { StoredBrief } from "./records";

/**
 * Control characters (C0 but tab and newline, DEL, C1) and the bidi controls that can reorder
 * what a terminal shows. The service refuses most of them at intake; they are stripped again here
 * because the tool prints to terminals, where an escape sequence in a record would be obeyed.
 */
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g;

/** One line of text, safe to print: no control characters, tabs and newlines as spaces. */
export function printable(value: string): string {
  return value.replace(UNPRINTABLE, "").replace(/[\t\n]/g, " ");
}

function label(labels: Record<string, string>, value: string): string {
  return labels[value] ?? value;
}

export const projectTypeLabel = (value: string) => label(PROJECT_TYPES, value);
export const budgetLabel = (value: string) => label(BUDGETS, value);
export const timelineLabel = (value: string) => label(TIMELINES, value);

/**
 * One line on how notifying ops went: `webhook ✓ email ✗`; `none configured` when no channel was
 * set up at the time; `pending` when there is no `delivery.json` (the notifications never ended,
 * or are still running); `not sent (spam)` for what the honeypot caught.
 */
export function deliveryStatus(brief: Pick<StoredBrief, "kind" | "delivery">): string {
  if (brief.kind === "spam") return "not sent (spam)";
  if (brief.delivery === null) return "pending";
  const parts = CHANNEL_NAMES.flatMap((name) => {
    const outcome = brief.delivery?.[name];
    return outcome ? [`${name} ${outcome.ok ? "✓" : "✗"}`] : [];
  });
  return parts.length > 0 ? parts.join(" ") : "none configured";
}

/**
 * How the acknowledgment to a brief's sender went, in ops' words: `sent`, `suppressed` (held back
 * on purpose: the 10-minute window, or verification that did not pass) or `failed`, with the
 * reason `delivery.json` records for the last two.
 */
export function acknowledgmentResult(outcome: AcknowledgmentOutcome): {
  result: "sent" | "suppressed" | "failed";
  reason: string | null;
} {
  if (outcome.ok) return { result: "sent", reason: null };
  return {
    result: outcome.suppressed ? "suppressed" : "failed",
    reason: outcome.error ?? "no reason recorded",
  };
}

/**
 * The acknowledgment in the list: `sent`, `suppressed` or `failed` (`show` gives the reason); `—`
 * when none was recorded (it is off, the brief is spam, or its notifications have not ended).
 */
function acknowledgmentCell(brief: Pick<StoredBrief, "delivery">): string {
  const outcome = brief.delivery?.acknowledgment;
  return outcome ? acknowledgmentResult(outcome).result : "—";
}

/** `2026-11-22 10:00` (UTC) from an ISO 8601 time; `seconds` adds `:05`. */
export function utcTime(iso: string, seconds = false): string {
  return iso.slice(0, seconds ? 19 : 16).replace("T", " ");
}

const codePoints = (value: string) => [...value];

/** `value` cut to `width` code points, ending in `…` when it was longer. */
export function clip(value: string, width: number): string {
  const characters = codePoints(value);
  return characters.length <= width ? value : `${characters.slice(0, width - 1).join("")}…`;
}

function pad(value: string, width: number): string {
  const text = clip(value, width);
  return text + " ".repeat(Math.max(0, width - codePoints(text).length));
}

/** `Project brief.pdf (48.2 KB)`, the name shortened first so the size always shows; `—` for none. */
export function attachmentCell(brief: StoredBrief, width: number): string {
  const { attachment } = brief.record;
  if (!attachment) return "—";
  const size = ` (${formatBytes(attachment.size)})`;
  return clip(printable(attachment.originalName), Math.max(width - size.length, 8)) + size;
}

/**
 * The table's columns. Widths are fixed, so rows print as they are read instead of after the
 * widest value is known; longer values are cut with `…` (`show` prints them whole).
 */
const COLUMNS: { title: string; width: number; cell: (brief: StoredBrief) => string }[] = [
  { title: "REFERENCE", width: 19, cell: (brief) => brief.record.reference },
  { title: "RECEIVED (UTC)", width: 16, cell: (brief) => utcTime(brief.record.receivedAt) },
  { title: "NAME", width: 22, cell: (brief) => brief.record.name },
  { title: "COMPANY", width: 22, cell: (brief) => brief.record.company ?? "—" },
  { title: "PROJECT TYPE", width: 25, cell: (brief) => projectTypeLabel(brief.record.projectType) },
  { title: "BUDGET", width: 15, cell: (brief) => budgetLabel(brief.record.budget) },
  { title: "TIMELINE", width: 19, cell: (brief) => timelineLabel(brief.record.timeline) },
  { title: "ATTACHMENT", width: 30, cell: (brief) => attachmentCell(brief, 30) },
  { title: "HUMAN CHECK", width: 11, cell: (brief) => brief.record.verification },
  { title: "STATUS", width: 8, cell: (brief) => brief.state.status },
  { title: "ACK", width: 10, cell: acknowledgmentCell },
  { title: "DELIVERY", width: 0, cell: deliveryStatus },
];

const GAP = "  ";

function tableLine(cells: string[]): string {
  return cells
    .map((cell, index) => {
      const width = COLUMNS[index]?.width ?? 0;
      return width > 0 ? pad(printable(cell), width) : printable(cell);
    })
    .join(GAP)
    .trimEnd();
}

export function tableHeader(): string {
  return `${tableLine(COLUMNS.map((column) => column.title))}\n`;
}

export function tableRow(brief: StoredBrief): string {
  return `${tableLine(COLUMNS.map((column) => column.cell(brief)))}\n`;
}

/**
 * Text wrapped at `width` code points, word by word; the writer's own line breaks are kept, and a
 * word longer than the width (a URL) gets a line of its own rather than being cut.
 */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    const clean = printable(paragraph.replace(/\t/g, "    "));
    const indent = /^ */.exec(clean)?.[0] ?? "";
    let line = "";
    for (const word of clean
      .slice(indent.length)
      .split(/ +/)
      .filter((part) => part !== "")) {
      const longer = line === "" ? indent + word : `${line} ${word}`;
      if (line !== "" && codePoints(longer).length > width) {
        out.push(line);
        line = word;
      } else {
        line = longer;
      }
    }
    out.push(line);
  }
  return out;
}

function field(labelText: string, value: string, indent = ""): string {
  return `${indent}${`${labelText}`.padEnd(14)}${printable(value)}`;
}

function labelled(labels: string, value: string): string {
  return labels === value ? value : `${labels} (${value})`;
}

/** The human check in full, for `show`. */
const VERIFICATION_DETAILS: Record<StoredBrief["record"]["verification"], string> = {
  passed: "passed (Cloudflare Turnstile)",
  unavailable: "unavailable: Turnstile could not be reached, let through unchecked",
  off: "off: human verification was not configured",
};

/** Everything about one brief, for `show`. */
export function briefDetails(brief: StoredBrief): string {
  const { record } = brief;
  const lines = [
    `Brief ${record.reference}${brief.kind === "spam" ? " (caught by the honeypot)" : ""}`,
    field("Stored at", `${brief.folder}/`),
    field("Received", `${utcTime(record.receivedAt, true)} UTC`),
    "",
    field("Name", record.name),
    field("Email", record.email),
    field("Company", record.company ?? "—"),
    field("Role", record.role ?? "—"),
    field("Project type", labelled(projectTypeLabel(record.projectType), record.projectType)),
    field("Budget", labelled(budgetLabel(record.budget), record.budget)),
    field("Timeline", labelled(timelineLabel(record.timeline), record.timeline)),
    field("Consent", record.consent ? "given" : "not given"),
    field("Human check", VERIFICATION_DETAILS[record.verification]),
    "",
    "Description",
    ...wrap(record.description, 76).map((line) => (line === "" ? "" : `  ${line}`)),
    "",
  ];
  const { attachment } = record;
  if (attachment) {
    lines.push(
      "Attachment",
      field("Name", attachment.originalName, "  "),
      field("Type", attachment.contentType, "  "),
      field(
        "Size",
        attachment.size < 1024
          ? formatBytes(attachment.size)
          : `${formatBytes(attachment.size)} (${attachment.size} bytes)`,
        "  ",
      ),
      field("SHA-256", attachment.sha256, "  "),
      field("Stored as", `${brief.folder}/${attachment.filename}`, "  "),
    );
  } else {
    lines.push(field("Attachment", "none"));
  }
  lines.push("", ...deliveryDetails(brief), "", ...stateDetails(brief), "");
  lines.push(
    "Client",
    field("IP hash", record.client.ipHash ?? "—", "  "),
    field("User agent", record.client.userAgent ?? "—", "  "),
    field("Origin", record.client.origin ?? "—", "  "),
  );
  return `${lines.join("\n")}\n`;
}

function stateDetails(brief: StoredBrief): string[] {
  const { status, notes } = brief.state;
  const lines = [field("Status", status)];
  if (notes.length === 0) return [...lines, field("Notes", "none")];
  lines.push("Notes");
  for (const note of notes) {
    lines.push(`  ${utcTime(note.at)} UTC  ${printable(note.by)}`);
    lines.push(...wrap(note.text, 72).map((line) => (line === "" ? "" : `    ${line}`)));
  }
  return lines;
}

function deliveryDetails(brief: StoredBrief): string[] {
  if (brief.kind === "spam") return [field("Delivery", "not sent: caught by the honeypot")];
  if (brief.delivery === null) {
    return [field("Delivery", "pending: no delivery.json (notifications never finished, or are running)")];
  }
  const delivery: Delivery = brief.delivery;
  const names = CHANNEL_NAMES.filter((name) => delivery[name]);
  const acknowledgment = delivery.acknowledgment;
  if (names.length === 0 && !acknowledgment) return [field("Delivery", "none: no channel was configured")];
  const line = (name: string, result: string, at: string, reason: string | null) =>
    `  ${name.padEnd(16)}${result.padEnd(12)}  ${utcTime(at, true)} UTC${reason === null ? "" : printable(`  ${reason}`)}`;
  const lines = ["Delivery"];
  for (const name of names) {
    const outcome = delivery[name];
    if (!outcome) continue;
    const reason = outcome.ok ? null : (outcome.error ?? "no reason recorded");
    lines.push(line(name, outcome.ok ? "✓ delivered" : "✗ failed", outcome.at, reason));
  }
  if (names.length === 0) lines.push("  no channel was configured");
  if (acknowledgment) {
    const { result, reason } = acknowledgmentResult(acknowledgment);
    const mark = { sent: "✓", suppressed: "–", failed: "✗" }[result];
    lines.push(line("acknowledgment", `${mark} ${result}`, acknowledgment.at, reason));
  }
  return lines;
}

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
];

/** Options as their labels (what ops read on the form), delivery as in the table. */
export function exportRow(brief: StoredBrief): ExportRow {
  const { record } = brief;
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
  };
}

export const SUBSCRIBER_COLUMNS: readonly (keyof SubscriberRecord)[] = [
  "email",
  "status",
  "topics",
  "subscribedAt",
  "updatedAt",
  "confirmedAt",
  "unsubscribedAt",
  "verification",
];

/** A subscriber as a CSV row, in `SUBSCRIBER_COLUMNS`' order (topics separated by `; `). */
export function subscriberCsvRow(subscriber: SubscriberRecord): (string | null)[] {
  return [
    subscriber.email,
    subscriber.status,
    subscriber.topics.join("; "),
    subscriber.subscribedAt,
    subscriber.updatedAt,
    subscriber.confirmedAt,
    subscriber.unsubscribedAt,
    subscriber.verification ?? "off",
  ];
}

export function subscriberTableHeader(): string {
  return `${[pad("EMAIL", 40), pad("STATUS", 12), pad("SUBSCRIBED (UTC)", 16), pad("UPDATED (UTC)", 16), pad("HUMAN CHECK", 11), "TOPICS"].join(GAP)}\n`;
}

export function subscriberTableRow(subscriber: SubscriberRecord): string {
  return `${[
    pad(printable(subscriber.email), 40),
    pad(subscriber.status, 12),
    pad(utcTime(subscriber.subscribedAt), 16),
    pad(utcTime(subscriber.updatedAt), 16),
    pad(subscriber.verification ?? "off", 11),
    printable(subscriber.topics.join(", ") || "—"),
  ]
    .join(GAP)
    .trimEnd()}\n`;
}
