import { userInfo } from "node:os";
import { formatBytes } from "../format";
import { ApiError } from "../http/errors";
import { CHANNEL_NAMES } from "../notify";
import {
  addBriefNote,
  changeStatus,
  collectGarbage,
  eraseAddress,
  type GarbageCollected,
  needsRedelivery,
  OpsError,
  planErase,
  rebuildSubscriberIndex,
  reindex,
  readBriefs,
  redeliverBrief,
  type RedeliveryResult,
  stillFailing,
} from "../ops";
import { collectExpiredSignIns } from "../ops-web/cleanup";
import { ABANDONED_UPLOAD_AGE_MS, type ObjectInfo } from "../store";
import { STAGED_UPLOAD_MAX_AGE_MS } from "../contact/staging";
import { type CommandContext, inboxName, problemReporter, requireBrief, write } from "./context";
import type { Invocation } from "./invocation";
import { printable } from "./text";

/** The commands that change the inbox or send again: redeliver, gc, status, note, erase. */

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

export async function redeliver(invocation: Invocation, context: CommandContext): Promise<number> {
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
 * `reindex`: the inbox on the web's list index (`index/`) deleted and rebuilt from the briefs, every
 * month, briefs then spam: after the store was edited by hand, which the index does not see.
 */
export async function rebuildIndex(_: Invocation, context: CommandContext): Promise<number> {
  const problems = problemReporter(context.stderr);
  for (const kind of ["briefs", "spam"] as const) {
    const started = Date.now();
    const months = await reindex(context.store, kind, context.now(), problems.report);
    await write(
      context.stdout,
      `${kind}: ${months} ${months === 1 ? "month" : "months"} indexed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
  }
  const started = Date.now();
  const subscribers = await rebuildSubscriberIndex(context.store, {
    now: context.now(),
    onProblem: problems.report,
  });
  await write(
    context.stdout,
    `subscribers: ${subscribers} indexed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return problems.count > 0 ? 1 : 0;
}

/**
 * `gc`: staged uploads no brief claimed, the inbox on the web's expired sign-in records, and the
 * temporary files of uploads a stopped process never finished, removed (or, with `--dry-run`,
 * listed) one line each.
 */
export async function gc(invocation: Invocation, context: CommandContext): Promise<number> {
  const { stdout } = context;
  const verb = invocation.dryRun ? "would remove" : "removed";
  const printExpired = (record: ObjectInfo, what: string) =>
    write(stdout, `${verb}  ${printable(record.path)}  (${what} ${record.uploadedAt.toISOString()})\n`);
  const problems = problemReporter(context.stderr);
  const collected = await collectGarbage(
    { store: context.store, collectExpiredSignIns },
    {
      now: context.now(),
      dryRun: invocation.dryRun,
      inOrder: true,
      retentionDays: context.config.retentionDays,
      actor: actor(invocation),
      onProblem: problems.report,
      onStagedUpload: (upload) => printExpired(upload, `${formatBytes(upload.size)}, uploaded`),
      onExpiredSignIn: (record) => printExpired(record, "expired, written"),
    },
  );
  const { stagedUploads: stale, expiredSignIns: expired, abandonedUploads: abandoned } = collected;
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
  if (collected.subscriberChanges > 0) {
    const marks = collected.subscriberChanges;
    await write(
      stdout,
      `${marks} subscriber change mark${marks === 1 ? "" : "s"} ${invocation.dryRun ? "would be folded" : "folded"} into the subscribers' index\n`,
    );
  }
  await describeRetention(collected.retention, invocation.dryRun, context);
  return problems.count > 0 ? 1 : 0;
}

/** What retention erased (or would): each folder, then the counts, and whether it is on at all. */
async function describeRetention(
  { briefs, spam, pendingSubscribers }: GarbageCollected["retention"],
  dryRun: boolean,
  { stdout, config }: CommandContext,
): Promise<void> {
  const verb = dryRun ? "would erase" : "erased";
  for (const folder of [...briefs, ...spam, ...pendingSubscribers]) {
    await write(stdout, `${verb}  ${printable(folder)}\n`);
  }
  const days = config.retentionDays;
  await write(
    stdout,
    days === null
      ? "Briefs and spam are kept forever (RETENTION_DAYS is not set)\n"
      : `${briefs.length} brief${briefs.length === 1 ? "" : "s"} and ${spam.length} spam ${spam.length === 1 ? "entry" : "entries"} older than ${days} days ${dryRun ? "would be erased" : "erased"}\n`,
  );
  if (pendingSubscribers.length > 0) {
    await write(
      stdout,
      `${pendingSubscribers.length} subscription${pendingSubscribers.length === 1 ? "" : "s"} left unconfirmed for 7 days ${dryRun ? "would be removed" : "removed"}\n`,
    );
  }
}

/** Who the audit log names for a change made with the tool. */
export function actor(invocation: Invocation): string {
  if (invocation.by !== null) return invocation.by;
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // no user name on this system: "unknown" says so
  }
  return `ops-tool:${user}`;
}

export async function setBriefStatus(invocation: Invocation, context: CommandContext): Promise<number> {
  const brief = await requireBrief(context, invocation.reference);
  const status = invocation.briefStatus ?? "new";
  const { before } = await changeStatus(context, brief, status, {
    actor: actor(invocation),
    now: context.now(),
  });
  await write(
    context.stdout,
    before.status === status
      ? `${brief.record.reference} was already ${status}.\n`
      : `${brief.record.reference}: ${before.status} -> ${status}\n`,
  );
  return 0;
}

export async function note(invocation: Invocation, context: CommandContext): Promise<number> {
  const brief = await requireBrief(context, invocation.reference);
  const state = await addBriefNote(context, brief, invocation.text ?? "", {
    actor: actor(invocation),
    now: context.now(),
  });
  await write(context.stdout, `Note added to ${brief.record.reference} (${state.notes.length} in all).\n`);
  return 0;
}

export async function eraseEverything(invocation: Invocation, context: CommandContext): Promise<number> {
  const address = invocation.address ?? "";
  const problems = problemReporter(context.stderr);
  const counted = (counts: { briefs: number; spam: number; subscribers: number }) =>
    `${counts.briefs} ${counts.briefs === 1 ? "brief" : "briefs"}, ` +
    `${counts.spam} spam ${counts.spam === 1 ? "entry" : "entries"}, ` +
    `${counts.subscribers} subscriber record${counts.subscribers === 1 ? "" : "s"}`;
  if (invocation.confirm === null) {
    const plan = await planErase(context.store, address, { now: context.now(), onProblem: problems.report });
    const counts = counted({
      briefs: plan.briefs.length,
      spam: plan.spam.length,
      subscribers: plan.subscriber ? 1 : 0,
    });
    await write(
      context.stdout,
      `${printable(address)}: ${counts}. Nothing was removed; run again with --confirm ${printable(address)} to erase them.\n`,
    );
    return problems.count > 0 ? 1 : 0;
  }
  let result;
  try {
    result = await eraseAddress(
      context,
      { email: address, confirm: invocation.confirm },
      { actor: actor(invocation), now: context.now(), onProblem: problems.report },
    );
  } catch (error) {
    if (error instanceof ApiError && error.fields?.confirm !== undefined) {
      throw new OpsError("--confirm does not repeat the address; nothing was removed");
    }
    throw error;
  }
  await write(context.stdout, `Erased ${counted(result)} of ${printable(address)}.\n`);
  return problems.count > 0 ? 1 : 0;
}
