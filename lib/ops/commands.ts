import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { stat, unlink, writeFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import type { Writable } from "node:stream";
import { cleanFileName } from "../attachments";
import { collectStaleUploads, STAGED_UPLOAD_MAX_AGE_MS } from "../contact/staging";
import { collectExpiredSignIns } from "../ops-web/cleanup";
import { formatBytes } from "../format";
import { ABANDONED_UPLOAD_AGE_MS } from "../store";
import { type Folder } from "../briefs";
import { SUBSCRIBER_STATUSES, type SubscriberRecord } from "../newsletter/subscribers";
import { attachmentFileName, CHANNEL_NAMES } from "../notify";
import type { InboxServices } from "../services";
import { auditTargetText, readAudit, recordAudit } from "./audit";
import type { Invocation } from "./cli";
import { erase, planErase } from "./erase";
import { csvRecord, EXPORT_CSV_HEADER, exportCsvRecord } from "./csv";
import { type InboxRecordError, OpsError } from "./errors";
import {
  briefDetails,
  exportRow,
  printable,
  SUBSCRIBER_COLUMNS,
  subscriberCsvRow,
  subscriberTableHeader,
  subscriberTableRow,
  tableHeader,
  tableRow,
  utcTime,
} from "./format";
import { findBrief, readAttachment, readBriefs, readSubscribers } from "./reader";
import type { StoredBrief } from "./records";
import { needsRedelivery, type RedeliveryResult, redeliverBrief, stillFailing } from "./redeliver";
import { addNote, setStatus } from "./state";

/** Where the tool writes, and how it builds the inbox's services (only once the command line is valid). */
export interface Output {
  stdout: Writable;
  stderr: Writable;
  /** Progress is redrawn on one line on a terminal, printed line by line otherwise. */
  stderrIsTTY: boolean;
  /** Where `attachment` saves and relative `--out` paths start. */
  cwd: string;
  services: () => InboxServices;
  now?: () => Date;
}

export interface CommandContext extends Output, InboxServices {
  now: () => Date;
}

/** Exports print a progress line to stderr every this many briefs. */
export const PROGRESS_EVERY = 100;

/** Writes, waiting when the stream is full: a long listing piped to a slow reader is not buffered whole. */
async function write(stream: Writable, chunk: string | Uint8Array): Promise<void> {
  if (!stream.write(chunk)) await once(stream, "drain");
}

/** Reports unreadable records on stderr as they are met, and counts them for the exit status. */
function problemReporter(stderr: Writable) {
  let count = 0;
  return {
    report: (problem: InboxRecordError) => {
      count++;
      stderr.write(`inbox: skipped: ${problem.message}\n`);
    },
    get count() {
      return count;
    },
  };
}

/**
 * Which inbox the tool read, for the end of a table: the tool reads the variables of its own
 * process, and `next start` also loads `.env` files, so saying where it looked makes a run
 * without the app's variables plain to see.
 */
function inboxName(context: CommandContext): string {
  const { inbox } = context.config;
  return inbox.driver === "filesystem"
    ? `the filesystem inbox ${resolve(context.cwd, inbox.dir)}`
    : "the Vercel Blob inbox";
}

/** A brief as JSON: the stored record, where it is, its delivery record (`null`: none) and its state. */
function briefJson(brief: StoredBrief) {
  return { ...brief.record, folder: brief.folder, delivery: brief.delivery, state: brief.state };
}

async function listBriefs(kind: Folder, invocation: Invocation, context: CommandContext): Promise<number> {
  const { stdout } = context;
  const problems = problemReporter(context.stderr);
  const briefs = readBriefs(context.store, kind, {
    since: invocation.since ?? undefined,
    onProblem: problems.report,
    now: context.now(),
  });
  let count = 0;
  if (invocation.json) {
    for await (const brief of briefs) {
      await write(stdout, `${count === 0 ? "[\n" : ",\n"}${JSON.stringify(briefJson(brief))}`);
      count++;
    }
    await write(stdout, count === 0 ? "[]\n" : "\n]\n");
  } else {
    await write(stdout, tableHeader());
    for await (const brief of briefs) {
      await write(stdout, tableRow(brief));
      count++;
    }
    const what = kind === "spam" ? "caught by the honeypot" : count === 1 ? "brief" : "briefs";
    const since = invocation.since ? ` since ${invocation.since}` : "";
    await write(stdout, `\n${count} ${what}${since} in ${printable(inboxName(context))}\n`);
  }
  return problems.count > 0 ? 1 : 0;
}

async function requireBrief(context: CommandContext, reference: string | null): Promise<StoredBrief> {
  const brief = reference === null ? null : await findBrief(context.store, reference, context.now());
  if (!brief) throw new OpsError(`brief ${reference} not found in the inbox`);
  return brief;
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
    await write(stdout, csvRecord(SUBSCRIBER_COLUMNS));
    for (const record of records) await write(stdout, csvRecord(subscriberCsvRow(record)));
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

/** One line per brief: what was sent again and how it went, and what still is not delivered. */
function describeRedelivery(result: RedeliveryResult): string {
  const parts: string[] = [];
  for (const name of CHANNEL_NAMES) {
    const outcome = result.attempted[name];
    if (outcome)
      parts.push(outcome.ok ? `${name} ✓ delivered` : `${name} ✗ failed again: ${outcome.error ?? ""}`);
  }
  const acknowledgment = result.attempted.acknowledgment;
  if (acknowledgment) {
    parts.push(
      acknowledgment.ok
        ? "acknowledgment ✓ sent"
        : `acknowledgment ✗ ${acknowledgment.suppressed ? "held back" : "failed again"}: ${acknowledgment.error ?? ""}`,
    );
  }
  if (result.acknowledgmentUnavailable) {
    parts.push("acknowledgment ✗ not retried: CONTACT_ACKNOWLEDGE is not on here");
  }
  for (const name of result.unavailable) {
    const error = result.delivery?.[name]?.error;
    parts.push(`${name} ✗ not configured here, not retried${error ? ` (failed: ${error})` : ""}`);
  }
  if (result.waiting !== null) parts.push(`left alone: ${result.waiting}`);
  if (result.error !== null) parts.push(`✗ ${result.error}`);
  if (parts.length === 0) parts.push("nothing to redeliver");
  return `${result.reference}  ${printable(parts.join("; "))}\n`;
}

async function redeliver(invocation: Invocation, context: CommandContext): Promise<number> {
  const { stdout } = context;
  const options = { acknowledgment: invocation.acknowledgment };
  if (invocation.reference !== null) {
    const brief = await requireBrief(context, invocation.reference);
    if (brief.kind === "spam") {
      throw new OpsError(
        `brief ${brief.record.reference} was caught by the honeypot; spam is never redelivered`,
      );
    }
    const result = await redeliverBrief(context, brief, context.now(), options);
    await write(stdout, describeRedelivery(result));
    return stillFailing(result, options) ? 1 : 0;
  }

  const problems = problemReporter(context.stderr);
  let tried = 0;
  let failing = 0;
  const briefs = readBriefs(context.store, "briefs", {
    since: invocation.since ?? undefined,
    onProblem: problems.report,
    select: (delivery) => needsRedelivery(delivery, options),
    now: context.now(),
  });
  for await (const brief of briefs) {
    const result = await redeliverBrief(context, brief, context.now(), options);
    await write(stdout, describeRedelivery(result));
    tried++;
    if (stillFailing(result, options)) failing++;
  }
  await write(
    stdout,
    tried === 0
      ? "Nothing to redeliver: every brief's channels succeeded.\n"
      : `${tried} ${tried === 1 ? "brief" : "briefs"} looked at: ${tried - failing} delivered or left alone, ${failing} still failing.\n`,
  );
  return failing > 0 || problems.count > 0 ? 1 : 0;
}

/**
 * `gc`: staged uploads no brief claimed, the inbox on the web's expired sign-in records, and the
 * temporary files of uploads a stopped process never finished, removed (or, with `--dry-run`,
 * listed) one line each.
 */
async function gc(invocation: Invocation, context: CommandContext): Promise<number> {
  const { stdout } = context;
  const verb = invocation.dryRun ? "would remove" : "removed";
  const stale = await collectStaleUploads(context.store, context.now(), {
    dryRun: invocation.dryRun,
    onExpired: (upload) =>
      write(
        stdout,
        `${verb}  ${printable(upload.path)}  (${formatBytes(upload.size)}, uploaded ${upload.uploadedAt.toISOString()})\n`,
      ),
  });
  // The inbox on the web's expired sessions and spent links (kept in the store without Redis).
  const expired = await collectExpiredSignIns(context.store, context.now(), {
    dryRun: invocation.dryRun,
    onExpired: (record) =>
      write(
        stdout,
        `${verb}  ${printable(record.path)}  (expired, written ${record.uploadedAt.toISOString()})\n`,
      ),
  });
  const abandoned = await context.store.removeAbandonedUploads(
    new Date(context.now().getTime() - ABANDONED_UPLOAD_AGE_MS),
    { dryRun: invocation.dryRun },
  );
  for (const upload of abandoned) {
    await write(
      stdout,
      `${verb}  ${printable(upload.path)}  (${formatBytes(upload.size)}, last written ${upload.lastWritten.toISOString()})\n`,
    );
  }
  const done = invocation.dryRun ? "would be removed" : "removed";
  const count = stale.length === 0 ? "No" : String(stale.length);
  const age = `older than ${STAGED_UPLOAD_MAX_AGE_MS / 60_000} minutes`;
  const outcome = stale.length === 0 ? "found" : done;
  const where = printable(inboxName(context));
  await write(
    stdout,
    `${count} staged upload${stale.length === 1 ? "" : "s"} ${age} ${outcome} in ${where}\n`,
  );
  if (abandoned.length > 0) {
    const minutes = ABANDONED_UPLOAD_AGE_MS / 60_000;
    await write(
      stdout,
      `${abandoned.length} unfinished upload${abandoned.length === 1 ? "" : "s"} older than ${minutes} minutes ${done} in ${where}\n`,
    );
  }
  if (expired.length > 0) {
    await write(
      stdout,
      `${expired.length} expired sign-in record${expired.length === 1 ? "" : "s"} of the inbox on the web ${done}\n`,
    );
  }
  return 0;
}

/** Who the audit log names for a change made with the tool. */
function actor(invocation: Invocation): string {
  if (invocation.by !== null) return invocation.by;
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // no user name on this system: "unknown" says so
  }
  return `ops-tool:${user}`;
}

async function setBriefStatus(invocation: Invocation, context: CommandContext): Promise<number> {
  const brief = await requireBrief(context, invocation.reference);
  const status = invocation.briefStatus ?? "new";
  const by = actor(invocation);
  const now = context.now();
  const before = brief.state.status;
  await setStatus(context.store, brief.folder, status, by, now);
  await recordAudit(
    context.store,
    { actor: by, action: "status", target: { reference: brief.record.reference, status } },
    now,
  );
  await write(
    context.stdout,
    before === status
      ? `${brief.record.reference} was already ${status}.\n`
      : `${brief.record.reference}: ${before} -> ${status}\n`,
  );
  return 0;
}

async function note(invocation: Invocation, context: CommandContext): Promise<number> {
  const brief = await requireBrief(context, invocation.reference);
  const by = actor(invocation);
  const now = context.now();
  const state = await addNote(context.store, brief.folder, invocation.text ?? "", by, now);
  await recordAudit(context.store, { actor: by, action: "note", target: brief.record.reference }, now);
  await write(context.stdout, `Note added to ${brief.record.reference} (${state.notes.length} in all).\n`);
  return 0;
}

async function eraseAddress(invocation: Invocation, context: CommandContext): Promise<number> {
  const address = invocation.address ?? "";
  const problems = problemReporter(context.stderr);
  const plan = await planErase(context.store, address, { now: context.now(), onProblem: problems.report });
  const counts =
    `${plan.briefs.length} ${plan.briefs.length === 1 ? "brief" : "briefs"}, ` +
    `${plan.spam.length} spam ${plan.spam.length === 1 ? "entry" : "entries"}, ` +
    `${plan.subscriber ? 1 : 0} subscriber record${plan.subscriber ? "" : "s"}`;
  if (invocation.confirm === null) {
    await write(
      context.stdout,
      `${printable(address)}: ${counts}. Nothing was removed; run again with --confirm ${printable(address)} to erase them.\n`,
    );
    return problems.count > 0 ? 1 : 0;
  }
  if (invocation.confirm.trim().toLowerCase() !== address.toLowerCase()) {
    throw new OpsError("--confirm does not repeat the address; nothing was removed");
  }
  const result = await erase(context.store, plan);
  await recordAudit(
    context.store,
    { actor: actor(invocation), action: "erase", target: { ...result } },
    context.now(),
  );
  await write(context.stdout, `Erased ${counts} of ${printable(address)}.\n`);
  return problems.count > 0 ? 1 : 0;
}

async function audit(invocation: Invocation, context: CommandContext): Promise<number> {
  const problems = problemReporter(context.stderr);
  const entries = await readAudit(context.store, { limit: invocation.limit, onProblem: problems.report });
  if (invocation.json) {
    await write(context.stdout, `${JSON.stringify(entries, null, 2)}\n`);
  } else {
    for (const entry of entries) {
      await write(
        context.stdout,
        `${utcTime(entry.at, true)}  ${printable(entry.action).padEnd(10)}  ${printable(entry.actor)}  ${printable(auditTargetText(entry.target))}\n`,
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
  status: setBriefStatus,
  note,
  erase: eraseAddress,
  audit,
} satisfies Record<string, (invocation: Invocation, context: CommandContext) => Promise<number>>;
