import { visibleText } from "../format";

/**
 * CSV as RFC 4180 writes it: records end in CRLF; a field holding a comma, a double quote, CR or
 * LF is put in double quotes, with each double quote in it doubled. Text is UTF-8, no BOM.
 */

/**
 * A spreadsheet treats a cell starting with one of these as a formula (or, for tab and CR, may
 * drop them and then read a formula), so text a visitor typed (`=HYPERLINK(...)`) could run in
 * ops' spreadsheet. Such a cell gets a leading apostrophe, which spreadsheets show as text; the
 * price is that a description starting with `-` reads `'-` in a text editor.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One field; bidirectional controls in it are shown as code points, so a row reads as typed. */
export function csvCell(value: string | number | null): string {
  let text = value === null ? "" : visibleText(String(value));
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRecord(values: readonly (string | number | null)[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}
