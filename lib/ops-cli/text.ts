import { visibleText } from "../format";

/**
 * Control characters (C0 but tab and newline, DEL, C1). The service refuses most of them at
 * intake; they are stripped again here because the tool prints to terminals, where an escape
 * sequence in a record would be obeyed.
 */
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * One line of text, safe to print: no control characters, tabs and newlines as spaces, and the
 * bidirectional controls a description may keep shown as code points (`<U+202E>`), never obeyed.
 */
export function printable(value: string): string {
  return visibleText(value.replace(UNPRINTABLE, "")).replace(/[\t\n]/g, " ");
}

export const codePoints = (value: string) => [...value];

/** `value` cut to `width` code points, ending in `…` when it was longer. */
export function clip(value: string, width: number): string {
  const characters = codePoints(value);
  return characters.length <= width ? value : `${characters.slice(0, width - 1).join("")}…`;
}

export function pad(value: string, width: number): string {
  const text = clip(value, width);
  return text + " ".repeat(Math.max(0, width - codePoints(text).length));
}

/**
 * Text wrapped at `width` code points, word by word; the writer's own line breaks are kept, and a
 * word longer than the width (a URL) gets a line of its own rather than being cut.
 */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    const clean = printable(paragraph.replace(/\t/g, "    "));
    const indent = /^ */.exec(clean)?.[0] ?? "";
    let line = "";
    for (const word of clean
      .slice(indent.length)
      .split(/ +/)
      .filter((part) => part !== "")) {
      const longer = line === "" ? indent + word : `${line} ${word}`;
      if (line !== "" && codePoints(longer).length > width) {
        out.push(line);
        line = word;
      } else {
        line = longer;
      }
    }
    out.push(line);
  }
  return out;
}
