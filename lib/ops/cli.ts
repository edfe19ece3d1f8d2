import { parseArgs } from "node:util";
import { z } from "zod";
import { ConfigError } from "../config";
import { StoreUnavailableError } from "../store";
import { describeFailure } from "../notify";
import { SUBSCRIBER_STATUSES, type SubscriberStatus } from "../newsletter/subscribers";
import { parseReference } from "../reference";
import { COMMANDS, type CommandContext, type Output } from "./commands";
import { AUDIT_PAGE_SIZE } from "./audit";
import { OpsError, UsageError } from "./errors";
import { BRIEF_STATUSES, type BriefStatus, isBriefStatus, noteProblem } from "./state";

export { type Output } from "./commands";

export const USAGE = `Usage: npm run -s inbox -- <command> [options]

Reads the intake inbox with the app's own configuration: INBOX_DIR, or the Vercel Blob store
when BLOB_READ_WRITE_TOKEN is set; redeliver uses WEBHOOK_* and SMTP_URL/EMAIL_* as the app does.

Commands:
  list [--since YYYY-MM-DD] [--json]
      Briefs, newest first: a table, or a JSON array.
  show <reference> [--json]
      One brief in full, with its attachment and delivery record.
  attachment <reference> [--out PATH] [--force]
      Saves the brief's file (default: its original name, in the current folder; "-" writes to
      stdout), after checking it against the SHA-256 in brief.json. Never overwrites without --force.
  export --format csv|json [--since YYYY-MM-DD] [--out FILE] [--force]
      Every brief, one row each, to stdout or FILE. Progress goes to stderr.
  subscribers [--status confirmed|pending|unsubscribed|all] [--json | --csv]
      Newsletter subscribers with their status and topics, newest first: by default only the
      confirmed ones, who get the newsletter (the table says how many others there are).
  redeliver <reference> | --failed [--since YYYY-MM-DD] [--acknowledgment]
      Sends a brief again through the channels recorded as failed (--failed: every brief with a
      failed or missing delivery record), and updates delivery.json. Spam is never redelivered.
      --acknowledgment also resends the sender's acknowledgment when it is recorded as failed
      (never one that was sent, nor one held back by the 10-minute window or verification).
  spam [--since YYYY-MM-DD] [--json]
      What the honeypot caught, as list shows briefs.
  status <reference> new|handled|archived [--by NAME]
      Sets a brief's status (state.json beside brief.json, written with a conditional write).
  note <reference> "<text>" [--by NAME]
      Adds a note to a brief.
  erase <address> [--confirm <address>] [--by NAME]
      Shows how many briefs, spam entries and subscriber records come from the address; with
      --confirm and the same address typed again, removes every file of them (right to erasure).
  audit [--limit N] [--json]
      The audit log, newest first (sign-ins, downloads, exports, status, notes, erasures...).
  gc [--dry-run]
      Removes files uploaded ahead of a form (Blob inbox, staging/) that no brief claimed within
      an hour, and the inbox on the web's expired sessions and spent sign-in links (kept in the
      store without Redis). --dry-run only lists them.

status, note and erase are recorded in the audit log as --by, else as ops-tool:<your user name>.
A reference may be typed in any case, with or without dashes (k7qm3xd9ptwa84hc).
Exit status: 0 done; 1 failed (not found, damaged file, a delivery still failing, unreadable
records, the inbox unreachable); 2 wrong usage.
`;

type OptionSpec = Record<string, { type: "string" | "boolean" }>;

const SINCE = { since: { type: "string" } } as const;
const BY = { by: { type: "string" } } as const;

const OPTIONS: Record<string, { options: OptionSpec; positionals: [number, number] }> = {
  list: { options: { ...SINCE, json: { type: "boolean" } }, positionals: [0, 0] },
  spam: { options: { ...SINCE, json: { type: "boolean" } }, positionals: [0, 0] },
  show: { options: { json: { type: "boolean" } }, positionals: [1, 1] },
  attachment: { options: { out: { type: "string" }, force: { type: "boolean" } }, positionals: [1, 1] },
  export: {
    options: { ...SINCE, format: { type: "string" }, out: { type: "string" }, force: { type: "boolean" } },
    positionals: [0, 0],
  },
  subscribers: {
    options: { status: { type: "string" }, json: { type: "boolean" }, csv: { type: "boolean" } },
    positionals: [0, 0],
  },
  redeliver: {
    options: { ...SINCE, failed: { type: "boolean" }, acknowledgment: { type: "boolean" } },
    positionals: [0, 1],
  },
  gc: { options: { "dry-run": { type: "boolean" } }, positionals: [0, 0] },
  status: { options: { ...BY }, positionals: [2, 2] },
  note: { options: { ...BY }, positionals: [2, 2] },
  erase: { options: { ...BY, confirm: { type: "string" } }, positionals: [1, 1] },
  audit: { options: { limit: { type: "string" }, json: { type: "boolean" } }, positionals: [0, 0] },
};

/** What to say when a command's arguments are missing, where "a reference" would not say it all. */
const MISSING_ARGUMENTS: Record<string, string> = {
  status: "status takes a brief reference and new, handled or archived",
  note: "note takes a brief reference and the note's text",
  erase: "erase takes an email address",
};

/** What a command was asked, checked: values are only those the command can use. */
export interface Invocation {
  command: keyof typeof COMMANDS;
  reference: string | null;
  since: string | null;
  json: boolean;
  csv: boolean;
  format: "csv" | "json" | null;
  out: string | null;
  force: boolean;
  failed: boolean;
  /** `redeliver --acknowledgment`: also resend a failed acknowledgment to the sender. */
  acknowledgment: boolean;
  dryRun: boolean;
  /** `subscribers`: which to show; `confirmed` unless asked. */
  status: SubscriberStatus | "all";
  /** `status`: the brief's new status. */
  briefStatus: BriefStatus | null;
  /** `note`: its text. */
  text: string | null;
  /** `erase`: the address, and the same typed again to go ahead. */
  address: string | null;
  confirm: string | null;
  /** Who the audit log names for a change; `null`: the tool's user. */
  by: string | null;
  /** `audit`: how many entries. */
  limit: number;
}

/** `YYYY-MM-DD` that is a real calendar day. */
function parseDay(value: string): string {
  const date = new Date(`${value}T00:00:00Z`);
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
    Number.isNaN(date.getTime()) ||
    !date.toISOString().startsWith(value)
  ) {
    throw new UsageError(`--since takes a day as YYYY-MM-DD (UTC), got "${value}"`);
  }
  return value;
}

/** The command line, or `"help"`; throws `UsageError` for anything it cannot run. */
export function parseInvocation(argv: readonly string[]): Invocation | "help" {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError("no command given");
  if (argv.some((arg) => arg === "--help" || arg === "-h") || command === "help") return "help";
  const spec = OPTIONS[command];
  if (!spec) throw new UsageError(`unknown command "${command}"`);

  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: spec.options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const { positionals } = parsed;
  const [min, max] = spec.positionals;
  if (positionals.length > max) {
    throw new UsageError(`${command}: unexpected argument "${positionals[max]}"`);
  }

  const text = (name: string) => {
    const value = values[name];
    return typeof value === "string" ? value : null;
  };
  const flag = (name: string) => values[name] === true;

  let reference: string | null = null;
  const typed = positionals[0];
  if (typed !== undefined && command !== "erase") {
    reference = parseReference(typed);
    if (reference === null) {
      throw new UsageError(
        `"${typed}" is not a brief reference (16 letters and digits, like K7QM-3XD9-PTWA-84HC)`,
      );
    }
  }
  if (command === "redeliver") {
    if ((reference === null) === !flag("failed")) {
      throw new UsageError("redeliver takes a reference or --failed (one of the two)");
    }
    if (reference !== null && text("since") !== null)
      throw new UsageError("--since goes with redeliver --failed");
  } else if (positionals.length < min) {
    throw new UsageError(MISSING_ARGUMENTS[command] ?? `${command}: a brief reference is required`);
  }

  const format = text("format");
  if (command === "export" && format !== "csv" && format !== "json") {
    throw new UsageError(
      format === null ? "export needs --format csv or --format json" : `unknown format "${format}"`,
    );
  }
  if (flag("json") && flag("csv")) throw new UsageError("subscribers takes --json or --csv, not both");
  const status = text("status") ?? "confirmed";
  if (status !== "all" && !SUBSCRIBER_STATUSES.includes(status as SubscriberStatus)) {
    throw new UsageError(`--status takes ${SUBSCRIBER_STATUSES.join(", ")} or all, got "${status}"`);
  }
  const second = positionals[1] ?? null;
  let briefStatus: BriefStatus | null = null;
  if (command === "status") {
    if (!isBriefStatus(second)) {
      throw new UsageError(`status takes ${BRIEF_STATUSES.join(", ")}, got "${second ?? ""}"`);
    }
    briefStatus = second;
  }
  if (command === "note" && second !== null) {
    const problem = noteProblem(second);
    if (problem) throw new UsageError(`note: ${problem}`);
  }
  const address = command === "erase" ? (positionals[0] ?? "").trim() : null;
  if (address !== null && !z.email().safeParse(address).success) {
    throw new UsageError(`erase takes an email address, got "${address}"`);
  }
  const limitText = text("limit");
  if (limitText !== null && !/^[1-9]\d{0,5}$/.test(limitText)) {
    throw new UsageError(`--limit takes a whole number from 1 to 999999, got "${limitText}"`);
  }
  const by = text("by");
  if (by !== null && (by.trim() === "" || /[\u0000-\u001f\u007f]/.test(by))) {
    throw new UsageError("--by takes a name or an address");
  }
  const out = text("out");
  if (out === "") throw new UsageError("--out needs a path");
  const since = text("since");

  return {
    command: command as Invocation["command"],
    reference,
    since: since === null ? null : parseDay(since),
    json: flag("json"),
    csv: flag("csv"),
    format: format === "csv" || format === "json" ? format : null,
    out,
    force: flag("force"),
    failed: flag("failed"),
    acknowledgment: flag("acknowledgment"),
    dryRun: flag("dry-run"),
    status: status as SubscriberStatus | "all",
    briefStatus,
    text: command === "note" ? second : null,
    address,
    confirm: text("confirm"),
    by: by === null ? null : by.trim(),
    limit: limitText === null ? AUDIT_PAGE_SIZE : Number(limitText),
  };
}

/**
 * `npm run inbox -- <command>`: parses the command line, builds the inbox's services only once it
 * is valid, runs the command and answers its exit status. Never throws.
 */
export async function runInboxTool(argv: readonly string[], output: Output): Promise<number> {
  const { stderr } = output;
  let invocation: Invocation | "help";
  try {
    invocation = parseInvocation(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`inbox: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (invocation === "help") {
    output.stdout.write(USAGE);
    return 0;
  }
  try {
    const context: CommandContext = {
      ...output,
      ...output.services(),
      now: output.now ?? (() => new Date()),
    };
    return await COMMANDS[invocation.command](invocation, context);
  } catch (error) {
    if (error instanceof ConfigError) {
      stderr.write(`inbox: ${error.message}\nSee .env.example for every variable and its format.\n`);
    } else if (error instanceof OpsError) {
      stderr.write(`inbox: ${error.message}\n`);
    } else if (error instanceof StoreUnavailableError) {
      stderr.write(`inbox: the inbox could not be read: ${describeFailure(error)}\n`);
    } else {
      stderr.write(
        `inbox: ${describeFailure(error)}\n${error instanceof Error ? (error.stack ?? "") : ""}\n`,
      );
    }
    return 1;
  }
}
