import { randomBytes } from "node:crypto";

/**
 * The list's index documents (the catalog, each month's index) as they are written: one JSON line
 * with the format's `version` and a fresh random `revision`, so that every write's bytes differ
 * from the last and a conditional write can tell any two writes apart.
 */
export function indexDocumentLine(version: number, document: object): string {
  return `${JSON.stringify({ version, revision: randomBytes(9).toString("hex"), ...document })}\n`;
}
