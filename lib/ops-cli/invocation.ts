import { parseArgs } from "node:util";
import { z } from "zod";
import { SUBSCRIBER_STATUSES, type SubscriberStatus } from "../newsletter/subscribers";
import {
  AUDIT_PAGE_SIZE,
  BRIEF_STATUSES,
  type BriefStatus,
  DELIVERY_MARKS,
  type DeliveryMark,
  isBriefStatus,
  isDeliveryMark,
  noteProblem,
} from "../ops";
import { parseReference } from "../reference";
import { UsageError } from "./errors";

type OptionSpec = Record<string, { type: "string" | "boolean" }>;

const SINCE = { since: { type: "string" } } as const;
const BY = { by: { type: "string" } } as const;

const OPTIONS = {
  list: {
    options: { ...SINCE, json: { type: "boolean" }, delivery: { type: "string" } },
    positionals: [0, 0],
  },
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
  reindex: { options: {}, positionals: [0, 0] },
  status: { options: { ...BY }, positionals: [2, 2] },
  note: { options: { ...BY }, positionals: [2, 2] },
  erase: { options: { ...BY, confirm: { type: "string" } }, positionals: [1, 1] },
  person: { options: { ...BY, erase: { type: "boolean" } }, positionals: [1, 1] },
  audit: { options: { limit: { type: "string" }, json: { type: "boolean" } }, positionals: [0, 0] },
} satisfies Record<string, { options: OptionSpec; positionals: [number, number] }>;

/** The tool's commands, by name. */
export type CommandName = keyof typeof OPTIONS;

function isCommandName(value: string): value is CommandName {
  return Object.hasOwn(OPTIONS, value);
}

/** What to say when a command's arguments are missing, where "a reference" would not say it all. */
const MISSING_ARGUMENTS: Record<string, string> = {
  status: "status takes a brief reference and new, handled or archived",
  note: "note takes a brief reference and the note's text",
  erase: "erase takes an email address",
  person: "person takes an email address",
};

/** What a command was asked, checked: values are only those the command can use. */
export interface Invocation {
  command: CommandName;
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
  /** `person --erase`: erase the address's data once it is printed. */
  erase: boolean;
  /** `erase` and `person`: the address; `erase`: the same typed again to go ahead. */
  address: string | null;
  confirm: string | null;
  /** Who the audit log names for a change; `null`: the tool's user. */
  by: string | null;
  /** `audit`: how many entries. */
  limit: number;
  /** `list --delivery`: only the briefs with a channel retrying, or one that gave up. */
  delivery: DeliveryMark | null;
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
  if (!isCommandName(command)) throw new UsageError(`unknown command "${command}"`);
  const spec: { options: OptionSpec; positionals: [number, number] } = OPTIONS[command];

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
  const takesAddress = command === "erase" || command === "person";
  if (typed !== undefined && !takesAddress) {
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
  const address = takesAddress ? (positionals[0] ?? "").trim() : null;
  if (address !== null && !z.email().safeParse(address).success) {
    throw new UsageError(`${command} takes an email address, got "${address}"`);
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
  const delivery = text("delivery");
  if (delivery !== null && !isDeliveryMark(delivery)) {
    throw new UsageError(`--delivery takes ${DELIVERY_MARKS.join(" or ")}, got "${delivery}"`);
  }

  return {
    command,
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
    erase: flag("erase"),
    status: status as SubscriberStatus | "all",
    briefStatus,
    text: command === "note" ? second : null,
    address,
    confirm: text("confirm"),
    by: by === null ? null : by.trim(),
    limit: limitText === null ? AUDIT_PAGE_SIZE : Number(limitText),
    delivery,
  };
}
