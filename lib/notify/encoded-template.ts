import { hasLongerLines, isPlainText } from "nodemailer/lib/mime-funcs";
import MimeNode from "nodemailer/lib/mime-node";
import { encode as quotedPrintable } from "nodemailer/lib/qp";

/**
 * A body of text with a few values put in per message (lib/visitor-email/template.ts), encoded for
 * MIME once and filled in per message: byte for byte what nodemailer's `MimeNode` writes for the
 * filled body (its transfer encoding, then its quoted-printable encoder, soft line breaks and all),
 * which the tests check against nodemailer itself. Encoding the HTML of a visitor's email cost more
 * CPU than anything else in composing it (docs/performance.md).
 *
 * Why it is the same: a value is printable ASCII that does not end in whitespace, so every byte of
 * the fixed text encodes as it does next to any value, and the value's own bytes as themselves (`=`
 * as `=3D`). The soft line breaks are nodemailer's `wrap`, a loop where each line is decided by the
 * 76 characters from where it starts (and whether the body ends within them): a line wholly inside
 * a fixed part comes out the same whatever surrounds the part, so from a given start in a part the
 * lines up to its last 76 characters are kept, and only the lines near a value are worked out per
 * message, by the same steps as `wrap`'s.
 */

/** A body's transfer encoding, as nodemailer chooses it for text in memory. */
export type TextTransferEncoding = "7bit" | "quoted-printable";

/** A body ready for the message: its transfer encoding and the encoded text. */
export interface EncodedBody {
  transferEncoding: TextTransferEncoding;
  /**
   * The encoded text's bytes (ASCII only). Bytes, not a string: a message waits for siteverify, the
   * disk and the SMTP server while its body is held, and a string of it on the JavaScript heap was
   * copied by every scavenge of that wait and then promoted (docs/performance.md, sixth pass).
   */
  encoded: Buffer;
}

/** Each part's header block by content type and transfer encoding, as nodemailer writes it. */
const partHeaders = new Map<string, Buffer>();

/**
 * A part of a multipart message as nodemailer writes it for a body of `contentType` (`text/plain;
 * charset=utf-8`, as nodemailer types a `text`): its header block, then the encoded body. Given to
 * nodemailer as the part's raw content, so it composes the rest of the message (its headers and
 * boundaries) as before.
 */
export function encodedPart(contentType: string, body: EncodedBody): Buffer {
  const key = `${body.transferEncoding} ${contentType}`;
  let headers = partHeaders.get(key);
  if (headers === undefined) {
    // A child, as MailComposer makes each alternative (a root would get Date and Message-ID too).
    const part = new MimeNode("multipart/alternative").createChild(contentType);
    part.setContent("x");
    part.setHeader("Content-Transfer-Encoding", body.transferEncoding);
    headers = Buffer.from(`${part.buildHeaders()}\r\n\r\n`);
    partHeaders.set(key, headers);
  }
  return Buffer.concat([headers, body.encoded]);
}

/** What `wrap` is given by nodemailer's encoder: lines of at most 76 characters. */
const LINE_LENGTH = 76;
const LINE_MARGIN = Math.floor(LINE_LENGTH / 3);

/** nodemailer's encoder takes its input 64 KiB at a time; a longer body would be wrapped in slices. */
const ENCODE_SLICE_BYTES = 64 * 1024;

/** Printable ASCII, not ending in whitespace: encoded as itself (`=` as `=3D`) wherever it stands. */
const FILLABLE_VALUE = /^[\x20-\x7e]*[\x21-\x7e]$/;

/** Starts of lines kept per fixed part: one or two per part are seen in practice (docs/performance.md). */
const MAX_KEPT_STARTS = 4;

interface KeptLines {
  /** The lines from the start, soft breaks included, and where in the part the next line starts. */
  lines: string;
  next: number;
}

/** One body's template, encoded once (`of`), filled in per message (`fill`). */
export class EncodedTemplate {
  /** Per fixed part: the lines kept from each start of a line seen in it. */
  private readonly kept: Map<number, KeptLines>[];

  private constructor(
    readonly transferEncoding: TextTransferEncoding,
    /** The fixed parts, encoded as they are next to a value (or, the last, at the end). */
    private readonly encodedParts: readonly string[],
    private readonly slots: readonly number[],
    /** The fixed parts' bytes, for the encoder's 64 KiB slices. */
    private readonly fixedBytes: number,
  ) {
    this.kept = encodedParts.map(() => new Map());
  }

  /**
   * The template for a body that is `parts[0] value(slots[0]) parts[1] …` (`parts.length ===
   * slots.length + 1`), where `placeholders` is that body with a run of one character per
   * character of each value in its place (the rendering `lib/visitor-email/template.ts` keeps).
   * `null` when nodemailer's choice of transfer encoding could depend on the values.
   */
  static of(
    parts: readonly string[],
    slots: readonly number[],
    placeholders: string,
  ): EncodedTemplate | null {
    const transferEncoding = provenTransferEncoding(parts, placeholders);
    const last = parts[parts.length - 1] as string;
    // A body ending in whitespace is encoded by nodemailer's encoder in two goes (it holds the
    // whitespace back until it knows what follows): not worth proving the same.
    if (transferEncoding === null || /[ \t]$/.test(last) || (last === "" && slots.length === 0)) return null;
    const encodedParts =
      transferEncoding === "7bit"
        ? parts
        : parts.map((part, index) =>
            // A part followed by a value is encoded as if a plain character followed it.
            index < slots.length ? quotedPrintable(`${part}x`).slice(0, -1) : quotedPrintable(part),
          );
    const fixedBytes = parts.reduce((sum, part) => sum + Buffer.byteLength(part), 0);
    return new EncodedTemplate(transferEncoding, encodedParts, slots, fixedBytes);
  }

  /** The body with `values` put in, encoded; `null` for a value it cannot prove the same for. */
  fill(values: readonly string[]): EncodedBody | null {
    let bytes = this.fixedBytes;
    for (const slot of this.slots) {
      const value = values[slot];
      if (value === undefined || !FILLABLE_VALUE.test(value)) return null;
      bytes += value.length;
    }
    if (this.transferEncoding === "7bit") {
      return { transferEncoding: "7bit", encoded: asciiBytes(this.segments(values)) };
    }
    if (bytes > ENCODE_SLICE_BYTES) return null;
    const encodedValues = values.map((value) => value.replaceAll("=", "=3D"));
    return { transferEncoding: "quoted-printable", encoded: asciiBytes(this.wrapped(encodedValues)) };
  }

  /** The body's pieces in order: the first part, then each value and the part after it. */
  private segments(values: readonly string[]): string[] {
    const out = [this.encodedParts[0] as string];
    for (let index = 0; index < this.slots.length; index++) {
      out.push(values[this.slots[index] as number] as string, this.encodedParts[index + 1] as string);
    }
    return out;
  }

  /**
   * `wrap(encoded body)` as pieces, the lines inside fixed parts taken from what is kept. The body
   * itself is never joined: a line near a value is worked out from the 77 characters at its start
   * (`wrap`'s 76, and one more to tell whether the body goes on past them), the same for `wrapLine`.
   */
  private wrapped(encodedValues: readonly string[]): string[] {
    const body = this.segments(encodedValues);
    const bodyLength = body.reduce((sum, segment) => sum + segment.length, 0);
    if (bodyLength <= LINE_LENGTH) return body;
    const starts = this.partStarts(encodedValues);
    const out: string[] = [];
    let part = 0;
    let pos = 0;
    while (pos < bodyLength) {
      while (part + 1 < starts.length && pos >= (starts[part + 1] as number)) part++;
      const start = starts[part] as number;
      const length = (this.encodedParts[part] as string).length;
      if (pos - start + LINE_LENGTH < length) {
        const kept = this.keptLines(part, pos - start);
        out.push(kept.lines);
        pos = start + kept.next;
      } else {
        const [line, next] = wrapLine(textAt(body, pos, LINE_LENGTH + 1), 0);
        out.push(line);
        pos += next;
      }
    }
    return out;
  }

  /** Where each encoded fixed part starts in the body. */
  private partStarts(encodedValues: readonly string[]): number[] {
    const starts = [0];
    let at = (this.encodedParts[0] as string).length;
    for (let index = 0; index < this.slots.length; index++) {
      at += (encodedValues[this.slots[index] as number] as string).length;
      starts.push(at);
      at += (this.encodedParts[index + 1] as string).length;
    }
    return starts;
  }

  /**
   * `wrap`'s lines in fixed part `part` from `from`, while a line's 76 characters lie inside the
   * part short of its end: each is the line `wrap` makes there in any body holding the part.
   */
  private keptLines(part: number, from: number): KeptLines {
    const kept = this.kept[part] as Map<number, KeptLines>;
    const known = kept.get(from);
    if (known) return known;
    const text = this.encodedParts[part] as string;
    let lines = "";
    let pos = from;
    while (pos + LINE_LENGTH < text.length) {
      const [line, next] = wrapLine(text, pos);
      lines += line;
      pos = next;
    }
    const found = { lines, next: pos };
    if (kept.size < MAX_KEPT_STARTS) kept.set(from, found);
    return found;
  }
}

/** Up to `count` characters of the text `segments` make, from `from`. */
function textAt(segments: readonly string[], from: number, count: number): string {
  let text = "";
  let offset = 0;
  for (const segment of segments) {
    const end = offset + segment.length;
    if (end > from) text += segment.slice(Math.max(from - offset, 0), from + count - offset);
    if (end >= from + count) break;
    offset = end;
  }
  return text;
}

/** The bytes of ASCII `pieces` in order, in one buffer (no string of them all is made). */
function asciiBytes(pieces: readonly string[]): Buffer {
  const bytes = Buffer.allocUnsafe(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at, "latin1");
  return bytes;
}

/**
 * nodemailer's choice for the filled body (`MimeNode.getTransferEncoding` on text in memory), when
 * no value can change it: 7bit for plain text without lines over 76 characters, else
 * quoted-printable when Latin letters outnumber other characters. Values are plain ASCII on one
 * line, so plainness is the fixed parts' and line lengths are the placeholders' (one character per
 * character of the value); values only ever add Latin letters, so more in the fixed parts alone
 * settles it.
 */
function provenTransferEncoding(parts: readonly string[], placeholders: string): TextTransferEncoding | null {
  const fixed = parts.join("");
  if (isPlainText(fixed) && !hasLongerLines(placeholders, LINE_LENGTH)) return "7bit";
  let latin = 0;
  let other = 0;
  for (let index = 0; index < fixed.length; index++) {
    const code = fixed.charCodeAt(index);
    if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) latin++;
    else if (code <= 0x08 || code === 0x0b || code === 0x0c || (code >= 0x0e && code <= 0x1f) || code >= 0x80)
      other++;
  }
  return other < latin ? "quoted-printable" : null;
}

/**
 * One line of nodemailer's `wrap` (lib/qp, 76 characters a line) starting at `pos`: the text it
 * appends (a soft break included) and where the next line starts. The same steps, in the same
 * order, on the same 76 characters; the tests compare whole bodies with `wrap`'s.
 */
export function wrapLine(str: string, pos: number): [line: string, next: number] {
  const len = str.length;
  let line = str.substr(pos, LINE_LENGTH);
  let match: RegExpMatchArray | null;
  if ((match = line.match(/\r\n/))) {
    line = line.substr(0, (match.index as number) + match[0].length);
    return [line, pos + line.length];
  }
  if (line.substr(-1) === "\n") return [line, pos + line.length];
  if ((match = line.substr(-LINE_MARGIN).match(/\n.*?$/))) {
    line = line.substr(0, line.length - (match[0].length - 1));
    return [line, pos + line.length];
  }
  if (
    line.length > LINE_LENGTH - LINE_MARGIN &&
    (match = line.substr(-LINE_MARGIN).match(/[ \t.,!?][^ \t.,!?]*$/))
  ) {
    line = line.substr(0, line.length - (match[0].length - 1));
  } else if (line.match(/[=][\da-f]{0,2}$/i)) {
    if ((match = line.match(/[=][\da-f]{0,1}$/i))) line = line.substr(0, line.length - match[0].length);
    // Not within a UTF-8 sequence.
    while (
      line.length > 3 &&
      line.length < len - pos &&
      !line.match(/^(?:=[\da-f]{2}){1,4}$/i) &&
      (match = line.match(/[=][\da-f]{2}$/gi))
    ) {
      const code = parseInt(match[0].substr(1, 2), 16);
      if (code < 128) break;
      line = line.substr(0, line.length - 3);
      if (code >= 0xc0) break;
    }
  }
  if (!line.length) line = str.substr(pos, LINE_LENGTH);
  if (pos + line.length < len && line.substr(-1) !== "\n") {
    if (line.length === LINE_LENGTH && line.match(/[=][\da-f]{2}$/i)) line = line.substr(0, line.length - 3);
    else if (line.length === LINE_LENGTH) line = line.substr(0, line.length - 1);
    return [`${line}=\r\n`, pos + line.length];
  }
  return [line, pos + line.length];
}
