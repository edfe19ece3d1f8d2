import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { stat, unlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { cleanFileName } from "../attachments";
import { type Folder } from "../briefs";
import { formatBytes } from "../format";
import { SUBSCRIBER_STATUSES, type SubscriberRecord } from "../newsletter/subscribers";
import { attachmentFileName } from "../notify";
import {
  AUDIT_ACTIONS,
  auditTargetText,
  EXPORT_CSV_HEADER,
  exportCsvRecord,
  exportRow,
  OpsError,
  pendingBriefs,
  readAttachment,
  readAudit,
  readBriefs,
  readSubscribers,
  SUBSCRIBERS_CSV_HEADER,
  subscriberCsvRecord,
  utcTime,
} from "../ops";
import { gc, note, rebuildIndex, redeliver, eraseEverything, setBriefStatus } from "./changes";
import {
  briefJson,
  type Command,
  type CommandContext,
  inboxName,
  PROGRESS_EVERY,
  problemReporter,
  requireBrief,
  write,
} from "./context";
import { briefDetails } from "./details";
import { person } from "./person";
import type { CommandName, Invocation } from "./invocation";
import { subscriberTableHeader, subscriberTableRow, tableHeader, tableRow } from "./tables";
import { printable } from "./text";

/** The commands that read: list, spam, show, attachment, export, subscribers, audit; and every command by name. */

async function listBriefs(kind: Folder, invocation: Invocation, context: CommandContext): Promise<number> {
  const { stdout } = context;
  const problems = problemReporter(context.stderr);
  const options = { since: invocation.since ?? undefined, onProblem: problems.report };
  const briefs =
    invocation.delivery === null
      ? readBriefs(context.store, kind, { ...options, now: context.now() })
      : await pendingBriefs(context.store, invocation.delivery, options);
  let count = 0;
  if (invocation.json) {
    for await (const brief of briefs) {
      await write(stdout, `${count === 0 ? "[\n" : ",\n"}${JSON.stringify(briefJson(brief))}`);
      count++;
    }
    await write(stdout, count === 0 ? "[]\n" : "\n]\n");
  } else {
    await write(stdout, tableHeader(kind));
    for await (const brief of briefs) {
      await write(stdout, tableRow(brief));
      count++;
    }
    const what = kind === "spam" ? "caught as spam" : count === 1 ? "brief" : "briefs";
    const since = invocation.since ? ` since ${invocation.since}` : "";
    const delivery = invocation.delivery === null ? "" : ` with a delivery ${invocation.delivery}`;
    await write(stdout, `\n${count} ${what}${delivery}${since} in ${printable(inboxName(context))}\n`);
  }
  return problems.count > 0 ? 1 : 0;
}

async function show(invocation: Invocation, context: CommandContext): Promise<number> {
  const brief = await requireBrief(context, invocation.reference);
  const text = invocation.json ? `${JSON.stringify(briefJson(brief), null, 2)}\n` : briefDetails(brief);
  await write(context.stdout, text);
  return 0;
}

async function attachment(invocation: Invocation, context: CommandContext): Promise<number> {
  const brief = await requireBrief(context, invocation.reference);
  const bytes = await readAttachment(context.store, brief);
  const record = brief.record.attachment;
  if (!record) throw new OpsError(`brief ${brief.record.reference} has no attachment`);
  if (invocation.out === "-") {
    await write(context.stdout, bytes);
    return 0;
  }
  // The visitor's name for the file with the extension of its real type, as the email attaches it,
  // cleaned again: whatever brief.json says, it cannot name a path outside the folder.
  const fileName = cleanFileName(attachmentFileName(record));
  let target = invocation.out === null ? join(context.cwd, fileName) : resolve(context.cwd, invocation.out);
  if (invocation.out !== null && (await stat(target).catch(() => null))?.isDirectory()) {
    target = join(target, fileName);
  }
  try {
    await writeFile(target, bytes, { flag: invocation.force ? "w" : "wx" });
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") {
      throw new OpsError(`${target} already exists; nothing was written (--force overwrites it)`);
    }
    throw new OpsError(`could not write ${target}: ${(error as Error).message}`);
  }
  context.stderr.write(
    `Saved the attachment of ${brief.record.reference} (${record.contentType}, ${formatBytes(record.size)}, ` +
      `SHA-256 checked) to ${printable(target)}\n`,
  );
  return 0;
}

/** The export's destination: stdout, or a file claimed up front and removed if the export fails. */
async function exportTarget(invocation: Invocation, context: CommandContext) {
  if (invocation.out === null) {
    return { stream: context.stdout, finish: async () => {}, abandon: async () => {} };
  }
  const path = resolve(context.cwd, invocation.out);
  const stream = createWriteStream(path, { flags: invocation.force ? "w" : "wx" });
  try {
    await once(stream, "open");
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") {
      throw new OpsError(`${path} already exists; nothing was written (--force overwrites it)`);
    }
    throw new OpsError(`could not write ${path}: ${(error as Error).message}`);
  }
  return {
    stream,
    path,
    finish: async () => {
      stream.end();
      await once(stream, "close");
    },
    abandon: async () => {
      stream.destroy();
      await unlink(path).catch(() => {});
    },
  };
}

async function exportBriefs(invocation: Invocation, context: CommandContext): Promise<number> {
  const { stderr } = context;
  const problems = problemReporter(stderr);
  const target = await exportTarget(invocation, context);
  const csv = invocation.format === "csv";
  const progress = (count: number) =>
    stderr.write(
      context.stderrIsTTY ? `\r\u001b[2Kexported ${count} briefs…` : `exported ${count} briefs…\n`,
    );
  let count = 0;
  try {
    await write(target.stream, csv ? EXPORT_CSV_HEADER : "[");
    const briefs = readBriefs(context.store, "briefs", {
      since: invocation.since ?? undefined,
      onProblem: problems.report,
      now: context.now(),
    });
    for await (const brief of briefs) {
      const line = csv
        ? exportCsvRecord(brief)
        : `${count === 0 ? "\n" : ",\n"}${JSON.stringify(exportRow(brief))}`;
      await write(target.stream, line);
      count++;
      if (count % PROGRESS_EVERY === 0) progress(count);
    }
    if (!csv) await write(target.stream, count === 0 ? "]\n" : "\n]\n");
    await target.finish();
  } catch (error) {
    await target.abandon();
    throw error;
  }
  if (context.stderrIsTTY && count >= PROGRESS_EVERY) stderr.write("\r\u001b[2K");
  const where = target.path ? ` to ${printable(target.path)}` : "";
  stderr.write(`Exported ${count} ${count === 1 ? "brief" : "briefs"} as ${csv ? "CSV" : "JSON"}${where}.\n`);
  return problems.count > 0 ? 1 : 0;
}

async function subscribers(invocation: Invocation, context: CommandContext): Promise<number> {
  const { stdout } = context;
  const problems = problemReporter(context.stderr);
  const all = await readSubscribers(context.store, problems.report);
  const { status } = invocation;
  const records = status === "all" ? all : all.filter((record) => record.status === status);
  if (invocation.json) {
    await write(stdout, `${JSON.stringify(records, null, 2)}\n`);
  } else if (invocation.csv) {
    await write(stdout, SUBSCRIBERS_CSV_HEADER);
    for (const record of records) await write(stdout, subscriberCsvRecord(record));
  } else {
    await write(stdout, subscriberTableHeader());
    for (const record of records) await write(stdout, subscriberTableRow(record));
    const what = `${status === "all" ? "" : `${status} `}${records.length === 1 ? "subscriber" : "subscribers"}`;
    await write(
      stdout,
      `\n${records.length} ${what} in ${printable(inboxName(context))}${hiddenNote(all, status)}\n`,
    );
  }
  return problems.count > 0 ? 1 : 0;
}

/** What a status filter left out of the table, so nobody mistakes it for the whole list. */
function hiddenNote(all: readonly SubscriberRecord[], shown: Invocation["status"]): string {
  if (shown === "all") return "";
  const counts = SUBSCRIBER_STATUSES.filter((status) => status !== shown)
    .map((status) => [status, all.filter((record) => record.status === status).length] as const)
    .filter(([, count]) => count > 0);
  if (counts.length === 0) return "";
  return ` (not shown: ${counts.map(([status, count]) => `${count} ${status}`).join(", ")}; --status all shows every one)`;
}

/** The audit table's action column fits the longest action name, so the columns line up. */
const ACTION_WIDTH = Math.max(...AUDIT_ACTIONS.map((action) => action.length));

async function audit(invocation: Invocation, context: CommandContext): Promise<number> {
  const problems = problemReporter(context.stderr);
  const entries = await readAudit(context.store, { limit: invocation.limit, onProblem: problems.report });
  if (invocation.json) {
    await write(context.stdout, `${JSON.stringify(entries, null, 2)}\n`);
  } else {
    for (const entry of entries) {
      await write(
        context.stdout,
        `${utcTime(entry.at, true)}  ${printable(entry.action).padEnd(ACTION_WIDTH)}  ${printable(entry.actor)}  ${printable(auditTargetText(entry.target))}\n`,
      );
    }
    await write(
      context.stdout,
      `\n${entries.length} ${entries.length === 1 ? "entry" : "entries"}, newest first\n`,
    );
  }
  return problems.count > 0 ? 1 : 0;
}

export const COMMANDS = {
  list: (invocation: Invocation, context: CommandContext) => listBriefs("briefs", invocation, context),
  spam: (invocation: Invocation, context: CommandContext) => listBriefs("spam", invocation, context),
  show,
  attachment,
  export: exportBriefs,
  subscribers,
  redeliver,
  gc,
  reindex: rebuildIndex,
  status: setBriefStatus,
  note,
  erase: eraseEverything,
  person,
  audit,
} satisfies Record<CommandName, Command>;
