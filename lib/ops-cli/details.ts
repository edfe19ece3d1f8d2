import { formatBytes } from "../format";
import { CHANNEL_NAMES } from "../notify";
import { type ChannelDelivery, type Delivery } from "../briefs";
import {
  acknowledgmentResult,
  budgetLabel,
  projectTypeLabel,
  spamReasonText,
  type StoredBrief,
  timelineLabel,
  utcTime,
} from "../ops";
import { printable, wrap } from "./text";

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

/** What caught a spam entry (the reader gives every spam entry its `spam`; the honeypot by default). */
function caughtBy(brief: StoredBrief): string {
  return spamReasonText(brief.record.spam ?? { reason: "honeypot" });
}

/** Everything about one brief, for `show`. */
export function briefDetails(brief: StoredBrief): string {
  const { record } = brief;
  const lines = [
    `Brief ${record.reference}${brief.kind === "spam" ? ` (caught by ${caughtBy(brief)})` : ""}`,
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
  lines.push("", ...attributionDetails(brief), "", ...deliveryDetails(brief), "", ...stateDetails(brief), "");
  lines.push(
    "Client",
    field("IP hash", record.client.ipHash ?? "—", "  "),
    field("User agent", record.client.userAgent ?? "—", "  "),
    field("Origin", record.client.origin ?? "—", "  "),
  );
  return `${lines.join("\n")}\n`;
}

/** Where the lead came from, as the form sent it; `none recorded` when it sent nothing. */
function attributionDetails(brief: StoredBrief): string[] {
  const { attribution } = brief.record;
  if (!attribution) return [field("Came from", "none recorded")];
  const utm = Object.entries(attribution.utm ?? {}).map(([key, value]) => field(`utm_${key}`, value, "  "));
  return [
    "Came from",
    ...(attribution.page === undefined ? [] : [field("Page", attribution.page, "  ")]),
    ...(attribution.referrer === undefined ? [] : [field("Referrer", attribution.referrer, "  ")]),
    ...utm,
  ];
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
  if (brief.kind === "spam") return [field("Delivery", `not sent: caught by ${caughtBy(brief)}`)];
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
    const result = { delivered: "✓ delivered", retrying: "↻ retrying", failed: "✗ failed" }[outcome.state];
    lines.push(line(name, result, outcome.at, reason), ...attemptLines(outcome));
  }
  if (names.length === 0) lines.push("  no channel was configured");
  if (acknowledgment) {
    const { result, reason } = acknowledgmentResult(acknowledgment);
    const mark = { sent: "✓", suppressed: "–", retrying: "↻", failed: "✗" }[result];
    lines.push(
      line("acknowledgment", `${mark} ${result}`, acknowledgment.at, reason),
      ...attemptLines(acknowledgment),
    );
  }
  return lines;
}

/**
 * A channel's attempts under its line, oldest first, once there is more to say than its one line:
 * several attempts, or the next one due.
 */
function attemptLines(outcome: ChannelDelivery): string[] {
  const lines: string[] = [];
  if (outcome.attempts > 1 || outcome.state === "retrying") {
    const kept = outcome.attempts > outcome.log.length ? `, the last ${outcome.log.length} kept` : "";
    lines.push(`    ${outcome.attempts} ${outcome.attempts === 1 ? "attempt" : "attempts"}${kept}:`);
    for (const entry of outcome.log) {
      const status = entry.status === undefined ? "" : `  status ${entry.status}`;
      const error = entry.error === undefined ? "" : `  ${entry.error}`;
      lines.push(
        printable(
          `      ${utcTime(entry.at, true)} UTC  ${entry.ok ? "✓" : "✗"}  ${entry.ms} ms${status}${error}`,
        ),
      );
    }
  }
  if (outcome.nextAttemptAt) lines.push(`    next attempt ${utcTime(outcome.nextAttemptAt, true)} UTC`);
  return lines;
}
