import { randomBytes } from "node:crypto";
import { type ObjectStore, type StoreCallOptions, updateObject } from "../store";
import { z } from "zod";
import { check, parseJson } from "./parse";

/**
 * What ops did with a brief, kept in `.../<reference>/state.json` beside `brief.json` (which is
 * never rewritten): its status and notes. Written only with conditional writes (`updateObject`),
 * so two people saving at once lose neither change.
 */

/** `new` -> `handled` -> `archived`, in any order. A brief without `state.json` is `new`. */
export const BRIEF_STATUSES = ["new", "handled", "archived"] as const;
export type BriefStatus = (typeof BRIEF_STATUSES)[number];

export interface BriefNote {
  /** Who wrote it: the signed-in address, or the ops tool's `--by`. */
  by: string;
  /** ISO 8601, UTC. */
  at: string;
  text: string;
}

/** One status change: every change is kept, so of two saves at once neither is lost. */
export interface StatusChange {
  status: BriefStatus;
  by: string;
  at: string;
}

export interface BriefState {
  status: BriefStatus;
  notes: BriefNote[];
  history: StatusChange[];
  /** Random, new with every write: how a writer recognises its own write (see `updateObject`). */
  revision?: string;
}

export const NEW_STATE: BriefState = { status: "new", notes: [], history: [] };

/** The longest note taken, in code points: a note is a few lines, not a document. */
export const NOTE_MAX_LENGTH = 5_000;

const entry = { by: z.string(), at: z.iso.datetime() };
const stateSchema = z.object({
  status: z.enum(BRIEF_STATUSES),
  notes: z.array(z.object({ ...entry, text: z.string() })).default([]),
  history: z.array(z.object({ ...entry, status: z.enum(BRIEF_STATUSES) })).default([]),
  revision: z.string().optional(),
});

export function parseState(path: string, bytes: Uint8Array): BriefState {
  return check(path, stateSchema, parseJson(path, bytes), "a brief state record");
}

export function isBriefStatus(value: unknown): value is BriefStatus {
  return typeof value === "string" && (BRIEF_STATUSES as readonly string[]).includes(value);
}

export function statePath(folder: string): string {
  return `${folder}/state.json`;
}

function changeState(
  store: ObjectStore,
  folder: string,
  apply: (state: BriefState) => BriefState | null,
  options?: StoreCallOptions,
): Promise<BriefState> {
  const path = statePath(folder);
  return updateObject(
    store,
    path,
    "application/json",
    (bytes) => {
      const current = bytes === null ? NEW_STATE : parseState(path, bytes);
      const next = apply(current);
      if (next === null) return { result: current };
      const written = { ...next, revision: randomBytes(12).toString("hex") };
      return { write: `${JSON.stringify(written, null, 2)}\n`, result: written };
    },
    options,
  );
}

/** Sets the brief's status (a save of the status it already has writes nothing). */
export function setStatus(
  store: ObjectStore,
  folder: string,
  status: BriefStatus,
  by: string,
  now = new Date(),
  options?: StoreCallOptions,
): Promise<BriefState> {
  return changeState(
    store,
    folder,
    (state) =>
      state.status === status
        ? null
        : { ...state, status, history: [...state.history, { status, by, at: now.toISOString() }] },
    options,
  );
}

/** Adds a note (its text trimmed; the caller has checked it is not empty nor too long). */
export function addNote(
  store: ObjectStore,
  folder: string,
  text: string,
  by: string,
  now = new Date(),
  options?: StoreCallOptions,
): Promise<BriefState> {
  const note = { by, at: now.toISOString(), text: text.trim() };
  return changeState(store, folder, (state) => ({ ...state, notes: [...state.notes, note] }), options);
}

/** Why a note cannot be saved, or `null` when it can. */
export function noteProblem(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === "") return "Write the note first.";
  if ([...trimmed].length > NOTE_MAX_LENGTH) return `A note is at most ${NOTE_MAX_LENGTH} characters.`;
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(trimmed)) {
    return "A note cannot hold control characters.";
  }
  return null;
}
