import type { Folder } from "../briefs";
import { formatBytes } from "../format";
import type { SubscriberRecord } from "../newsletter/subscribers";
import {
  acknowledgmentResult,
  budgetLabel,
  deliveryStatus,
  projectTypeLabel,
  spamReasonText,
  type StoredBrief,
  timelineLabel,
  utcTime,
} from "../ops";
import { clip, pad, printable } from "./text";

/**
 * The acknowledgment in the list: `sent`, `suppressed` or `failed` (`show` gives the reason); `—`
 * when none was recorded (it is off, the brief is spam, or its notifications have not ended).
 */
function acknowledgmentCell(brief: Pick<StoredBrief, "delivery">): string {
  const outcome = brief.delivery?.acknowledgment;
  return outcome ? acknowledgmentResult(outcome).result : "—";
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

/** The spam list's last column, in place of DELIVERY (spam is never sent): what caught each entry. */
const CAUGHT_BY = {
  title: "CAUGHT BY",
  width: 0,
  cell: (brief: StoredBrief) => spamReasonText(brief.record.spam ?? { reason: "honeypot" }),
};

function columnsFor(kind: Folder) {
  return kind === "spam" ? [...COLUMNS.slice(0, -1), CAUGHT_BY] : COLUMNS;
}

export function tableHeader(kind: Folder = "briefs"): string {
  return `${tableLine(columnsFor(kind).map((column) => column.title))}\n`;
}

export function tableRow(brief: StoredBrief): string {
  return `${tableLine(columnsFor(brief.kind).map((column) => column.cell(brief)))}\n`;
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
