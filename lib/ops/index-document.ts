import { randomBytes } from "node:crypto";

/**
 * The list's index documents (the catalog, each month's index) as they are written: one JSON line
 * with the format's `version` and a fresh random `revision`, so that every write's bytes differ
 * from the last and a conditional write can tell any two writes apart.
 */
export function indexDocumentLine(version: number, document: object): string {
  return `${asciiJson({ version, revision: randomBytes(9).toString("hex"), ...document })}\n`;
}

/**
 * `value` as JSON in ASCII alone, every character past U+007E written as its `\u` escape. An index
 * is read far more often than it is written, and a single character outside ASCII (a name like
 * Zoë, the ✓ of a delivery line) makes Node decode the whole file the slow way, into a two-byte
 * string that JSON.parse then reads slowly too: at 50,000 briefs that doubled a search's time.
 * ASCII decodes and parses fast, and JSON.parse gives back the very same strings.
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
