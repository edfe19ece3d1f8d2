/** Wording shared by the server's messages and the forms (no server-only imports). */

/** A wait in whole seconds, as a person says it: "45 seconds", "10 minutes". */
export function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** A size in bytes, in the largest unit that keeps it above 1: "10 MB", "16 KB", "512 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/**
 * A count with its noun in the right number: "1 brief", "0 briefs", "12 entries". `plural` is
 * for nouns that do not just add an "s".
 */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/**
 * Unicode's bidirectional controls: embeddings, overrides and isolates (U+202A-U+202E,
 * U+2066-U+2069) and the marks U+200E, U+200F and U+061C. A single-line field refuses them; where
 * text keeps them (a description) they would let one brief pose as another sender or file.
 */
export const BIDI_CONTROL_CLASS = "\\u202a-\\u202e\\u2066-\\u2069\\u200e\\u200f\\u061c";

const BIDI_CONTROLS = new RegExp(`[${BIDI_CONTROL_CLASS}]`, "g");

/**
 * C0 controls, DEL, C1 controls and the bidirectional controls: what a single line (a form's
 * field, a name in a subject) refuses, so it reads as typed.
 */
export const SINGLE_LINE_CONTROL = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI_CONTROL_CLASS}]`);

/**
 * `text` with each bidirectional control shown as its code point (`<U+202E>`) instead of obeyed:
 * how the inbox, the CSV, the ops tool and every notification show visitor text, so what ops read
 * is in the order it was typed.
 */
export function visibleText(text: string): string {
  return text.replace(
    BIDI_CONTROLS,
    (control) => `<U+${control.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`,
  );
}

// Soft hyphen, zero-width characters, word joiner, BOM, direction marks, variation selectors...:
// characters a reader never sees, so a filter must not see them either.
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * `text` as rules compare it (spam keywords and domains): without Unicode's default-ignorable
 * characters, NFKC-normalised (fullwidth `ｃａｓｉｎｏ` is `casino`) and case-folded (through upper
 * case, so `ß` folds to `ss` as Unicode's full case folding does). Both sides of a comparison go
 * through it, so `cas\u00ADino` or `ca\u200Bsino` is caught as `casino` is.
 */
export function comparableText(text: string): string {
  return text.replace(IGNORABLE, "").normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");
}
