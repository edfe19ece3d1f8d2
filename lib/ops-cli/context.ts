import { once } from "node:events";
import { resolve } from "node:path";
import type { Writable } from "node:stream";
import type { Config } from "../config";
import { ApiError } from "../http/errors";
import {
  type InboxRecordError,
  type NotifyingInbox,
  OpsError,
  requireBrief as findRequiredBrief,
  type StoredBrief,
} from "../ops";
import type { Invocation } from "./invocation";

/**
 * What the tool's commands reach: the inbox the app's own configuration names, its channels (for
 * redeliver), and where to print.
 */
export interface ToolServices extends NotifyingInbox {
  config: Config;
}

/** Where the tool writes, and how it builds the inbox's services (only once the command line is valid). */
export interface Output {
  stdout: Writable;
  stderr: Writable;
  /** Progress is redrawn on one line on a terminal, printed line by line otherwise. */
  stderrIsTTY: boolean;
  /** Where `attachment` saves and relative `--out` paths start. */
  cwd: string;
  services: () => ToolServices;
  now?: () => Date;
}

export interface CommandContext extends Output, ToolServices {
  now: () => Date;
}

export type Command = (invocation: Invocation, context: CommandContext) => Promise<number>;

/** Exports print a progress line to stderr every this many briefs. */
export const PROGRESS_EVERY = 100;

/** Writes, waiting when the stream is full: a long listing piped to a slow reader is not buffered whole. */
export async function write(stream: Writable, chunk: string | Uint8Array): Promise<void> {
  if (!stream.write(chunk)) await once(stream, "drain");
}

/** Reports unreadable records on stderr as they are met, and counts them for the exit status. */
export function problemReporter(stderr: Writable) {
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
export function inboxName(context: CommandContext): string {
  const { inbox } = context.config;
  return inbox.driver === "filesystem"
    ? `the filesystem inbox ${resolve(context.cwd, inbox.dir)}`
    : "the Vercel Blob inbox";
}

/** A brief as JSON: the stored record, where it is, its delivery record (`null`: none) and its state. */
export function briefJson(brief: StoredBrief) {
  return { ...brief.record, folder: brief.folder, delivery: brief.delivery, state: brief.state };
}

/** The brief a command names, or the tool's own words when there is none. */
export async function requireBrief(context: CommandContext, reference: string | null): Promise<StoredBrief> {
  try {
    return await findRequiredBrief(context, reference ?? "", context.now());
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found") {
      throw new OpsError(`brief ${reference} not found in the inbox`);
    }
    throw error;
  }
}
