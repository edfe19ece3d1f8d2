import { formatBytes, visibleText } from "../format";
import type { AttachmentRecord, BriefRecord } from "../briefs";
import { BUDGETS, PROJECT_TYPES, TIMELINES } from "../schemas/brief";
import { attributionLines } from "./attribution";
import { html, type SafeHtml } from "./html";
import type { BriefNotice } from "./types";

/** The parts of the notification email that are text: subject and both bodies. */
export interface EmailText {
  subject: string;
  text: string;
  html: string;
}

// Single-line fields are already refused with control characters; a header never relies on that alone.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

export function emailSubject(record: BriefRecord): string {
  const name = visibleText(record.name).replace(CONTROL, " ").replace(/\s+/g, " ").trim();
  return `New brief ${record.reference} from ${name}`;
}

/**
 * The name the file is attached under: the visitor's own name for it (already cleaned of paths
 * and control characters) with the extension of the type detected from its bytes, so a PNG
 * sent as `brief.pdf` arrives as `brief.png` and opens in the right program.
 */
export function attachmentFileName(attachment: AttachmentRecord): string {
  const extension = attachment.filename.slice(attachment.filename.lastIndexOf(".") + 1);
  const dot = attachment.originalName.lastIndexOf(".");
  const stem = dot > 0 ? attachment.originalName.slice(0, dot) : attachment.originalName;
  return `${stem.trim() || "attachment"}.${extension}`;
}

/** The human check, as the summary shows it. */
const VERIFICATION_TEXT: Record<BriefRecord["verification"], string> = {
  passed: "passed (Cloudflare Turnstile)",
  unavailable: "NOT CHECKED: Turnstile could not be reached",
  off: "off (not configured)",
};

/**
 * A line above the summary when the sender was not confirmed to be a person: with verification on,
 * a brief that came through unchecked deserves a second look before anyone replies.
 */
export function verificationNotice(record: BriefRecord): string | null {
  switch (record.verification) {
    case "passed":
      return null;
    case "unavailable":
      return "Human check: not done. Cloudflare Turnstile could not be reached, so this brief was let through unchecked.";
    case "off":
      return "Human check: off. Human verification (Cloudflare Turnstile) is not configured.";
  }
}

function describeAttachment(attachment: AttachmentRecord | null): string {
  if (!attachment) return "none";
  return `${attachmentFileName(attachment)} (${attachment.contentType}, ${formatBytes(attachment.size)}), attached`;
}

/** Label and value of each line of the summary, shared by both bodies; visitor text shown as typed. */
function summary(record: BriefRecord): [string, string][] {
  return [
    ["Name", visibleText(record.name)],
    ["Email", visibleText(record.email)],
    ["Company", record.company === null ? "—" : visibleText(record.company)],
    ["Role", record.role === null ? "—" : visibleText(record.role)],
    ["Project type", PROJECT_TYPES[record.projectType]],
    ["Budget", BUDGETS[record.budget]],
    ["Timeline", TIMELINES[record.timeline]],
    ["Attachment", describeAttachment(record.attachment)],
    ["Human check", VERIFICATION_TEXT[record.verification]],
  ];
}

export function emailText({ record, folder }: BriefNotice): EmailText {
  return { subject: emailSubject(record), text: plainText(record, folder), html: htmlBody(record, folder) };
}

function plainText(record: BriefRecord, folder: string): string {
  const width = Math.max(...summary(record).map(([label]) => label.length)) + 3;
  const notice = verificationNotice(record);
  return [
    `New project brief ${record.reference}`,
    `Received ${record.receivedAt}, stored at ${folder}/`,
    "",
    ...(notice ? [notice, ""] : []),
    ...summary(record).map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`),
    "",
    ...cameFromText(record),
    "Description",
    "-----------",
    visibleText(record.description),
    "",
    `Reply to this email to answer ${visibleText(record.name)}.`,
    "",
  ].join("\n");
}

/** Where the lead came from, under its own heading; nothing when the brief kept none of it. */
function cameFromText(record: BriefRecord): string[] {
  const origin = attributionLines(record);
  if (origin.length === 0) return [];
  const width = Math.max(...origin.map(([label]) => label.length)) + 3;
  return [
    "Where it came from",
    "------------------",
    ...origin.map(([label, value]) => `${`${label}:`.padEnd(width)}${visibleText(value)}`),
    "",
  ];
}

function cameFromHtml(record: BriefRecord): SafeHtml | null {
  const origin = attributionLines(record);
  if (origin.length === 0) return null;
  return html`<h2 style="font-size:16px;margin:0 0 4px">Where it came from</h2>
    <table style="border-collapse:collapse;margin:0 0 16px">
      ${origin.map(
        ([label, value]) =>
          html`<tr>
            <th style="${CELL};font-weight:600">${label}</th>
            <td style="${CELL};word-break:break-all">${visibleText(value)}</td>
          </tr>`,
      )}
    </table>`;
}

function lines(value: string): SafeHtml {
  return html`${value.split(/\r\n|\r|\n/).map((line, index) => (index === 0 ? line : [html`<br />`, line]))}`;
}

const CELL = "padding:4px 16px 4px 0;vertical-align:top;text-align:left";

function htmlBody(record: BriefRecord, folder: string): string {
  const notice = verificationNotice(record);
  const rows = summary(record).map(
    ([label, value]) =>
      html`<tr>
        <th style="${CELL};font-weight:600">${label}</th>
        <td style="${CELL}">${value}</td>
      </tr>`,
  );
  return html`<!doctype html>
    <html>
      <body
        style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:15px;line-height:1.5;color:#111"
      >
        <h1 style="font-size:18px;margin:0 0 4px">New project brief ${record.reference}</h1>
        <p style="margin:0 0 16px;color:#555">Received ${record.receivedAt}, stored at ${folder}/</p>
        ${
          notice
            ? html`<p
                style="margin:0 0 16px;padding:8px 12px;background:#fef3c7;border-left:4px solid #d97706"
              >
                <strong>${notice}</strong>
              </p>`
            : null
        }
        <table style="border-collapse:collapse;margin:0 0 16px">
          ${rows}
        </table>
        ${cameFromHtml(record)}
        <h2 style="font-size:16px;margin:0 0 4px">Description</h2>
        <p style="margin:0 0 16px">${lines(visibleText(record.description))}</p>
        <p style="margin:0;color:#555">Reply to this email to answer ${visibleText(record.name)}.</p>
      </body>
    </html> `.value;
}
