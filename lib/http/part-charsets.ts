import { getDecoder, type ParamDecoder, parseContentType, parseDisposition } from "busboy/lib/utils.js";
import StreamSearch from "streamsearch";

/**
 * The charset each part of a `multipart/form-data` body declares, kept for decoding its text once.
 *
 * busboy decodes a text part by the charset its `Content-Type` names, lossily (bytes that are not
 * UTF-8 become U+FFFD, `base64` re-encodes the text), and does not tell its 'field' listener which
 * charset that was. So this stage sits between the body's chunks and busboy. It follows the body
 * the way busboy 1.6 does (the same delimiter search, the same part-header grammar and limits,
 * busboy's own parsers for header values), records the declared charset of every part busboy will
 * emit, in order, and takes the `charset` parameter out of that part's `Content-Type`. busboy then
 * reads every text part with its default charset, latin1, a lossless view of the bytes, and each
 * value is decoded from its exact bytes by `decodePartText`. Nothing else is changed: part
 * contents, files included, pass through byte for byte, and so do header blocks without a charset.
 *
 * It relies on readMultipart's busboy having 'field' and 'file' listeners and no `files` or
 * `fields` limit: then busboy emits exactly the parts whose headers carry a form-data
 * Content-Disposition. (Past its `parts` limit busboy emits nothing more, so records made for
 * later parts are never asked for.)
 */
export class PartCharsets {
  /**
   * The body broke a rule of part headers: a header busboy refuses, or a boundary delimiter inside
   * a part's header block (where busboy's reading depends on how the bytes were chunked). Nothing
   * more is passed on; the form is malformed.
   */
  malformed = false;

  private readonly search: StreamSearch;
  private readonly delimiter: Buffer;
  private readonly paramDecoder: ParamDecoder;
  private readonly charsets: (string | null)[] = [];
  private nextRecord = 0;
  /** After the closing delimiter busboy reads nothing more; neither does this stage. */
  private finished = false;
  /** The bytes for busboy from the current `write` or `end`. */
  private output: Buffer[] = [];
  /** busboy gives its own delimiter search a CRLF before the body; ours has one too, not passed on. */
  private skipBytes = CRLF.length;
  /** Reading a part's header block, held back until it is whole. */
  private headers: PartHeaderParser | null = null;
  private held: Buffer[] = [];
  /** Where busboy is just after a delimiter: 1 after it, 2 after a dash, 3 after a CR (its `matchPostBoundary`). */
  private afterDelimiter = 0;

  /** `paramCharset` is busboy's `defParamCharset`. */
  constructor(boundary: string, paramCharset: string) {
    const needle = `\r\n--${boundary}`;
    this.delimiter = Buffer.from(needle);
    this.paramDecoder = getDecoder(paramCharset);
    this.search = new StreamSearch(needle, (isMatch, data, start, end, isDataSafe) =>
      this.onSearch(isMatch, data, start, end, isDataSafe),
    );
    this.search.push(CRLF);
  }

  /** The bytes to hand busboy for this chunk of the body (possibly none). */
  write(chunk: Uint8Array): Buffer {
    if (!this.finished && !this.malformed) {
      this.search.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
    return this.takeOutput();
  }

  /** The last bytes for busboy, once the body has ended. */
  end(): Buffer {
    if (!this.finished && !this.malformed) {
      this.search.destroy();
      // A header block cut off by the end: busboy reports it as malformed once it sees the bytes.
      this.releaseHeld();
    }
    return this.takeOutput();
  }

  /**
   * The charset declared by the next part busboy emits (a 'field' or a 'file'), in body order:
   * its `charset` parameter lowercased, `null` when it named none, `undefined` when this stage
   * recorded no such part (a bug: busboy and this stage no longer agree).
   */
  nextPart(): string | null | undefined {
    if (this.nextRecord >= this.charsets.length) return undefined;
    return this.charsets[this.nextRecord++];
  }

  private takeOutput(): Buffer {
    const output = this.output;
    this.output = [];
    return output.length === 1 ? (output[0] as Buffer) : Buffer.concat(output);
  }

  private emit(bytes: Buffer): void {
    if (this.skipBytes > 0) {
      const skipped = Math.min(this.skipBytes, bytes.length);
      this.skipBytes -= skipped;
      bytes = bytes.subarray(skipped);
    }
    if (bytes.length > 0) this.output.push(bytes);
  }

  /** Bytes of `data` the stage does not keep: the search's own buffer is reused, so copy from it. */
  private pass(data: Buffer, start: number, end: number, isDataSafe: boolean): void {
    if (start >= end) return;
    this.emit(isDataSafe ? data.subarray(start, end) : Buffer.from(data.subarray(start, end)));
  }

  private hold(data: Buffer, start: number, end: number): void {
    if (start < end) this.held.push(Buffer.from(data.subarray(start, end)));
  }

  private releaseHeld(): void {
    for (const bytes of this.held) this.emit(bytes);
    this.held = [];
  }

  private fail(): void {
    this.releaseHeld();
    this.malformed = true;
  }

  /** busboy's `ssCb`: the bytes before a delimiter (or before the end of what arrived), then the delimiter. */
  private onSearch(
    isMatch: boolean,
    data: Buffer | undefined,
    start: number,
    end: number,
    isDataSafe: boolean,
  ): void {
    if (this.finished || this.malformed) return;
    // busboy returns before handling the delimiter in a few spots; the delimiter's bytes still follow.
    const seesDelimiter = data ? this.read(data, start, end, isDataSafe) : true;
    if (!isMatch || this.finished || this.malformed) return;
    if (seesDelimiter) {
      if (this.headers) return this.fail();
      this.afterDelimiter = 1;
    }
    this.emit(this.delimiter);
  }

  /** Follows busboy through bytes between delimiters; `false` where busboy returns early. */
  private read(data: Buffer, start: number, end: number, isDataSafe: boolean): boolean {
    for (;;) {
      if (this.headers) {
        const headerEnd = this.headers.push(data, start, end);
        if (headerEnd === -1) {
          this.hold(data, start, end);
          this.fail();
          return true;
        }
        this.hold(data, start, headerEnd);
        start = headerEnd;
        if (!this.headers.complete) return true;
        this.endOfHeaders(this.headers);
      }
      if (start === end) return true;

      const from = start;
      if (this.afterDelimiter === 1) {
        const code = data[start];
        if (code === DASH || code === CR) {
          this.afterDelimiter = code === DASH ? 2 : 3;
          start += 1;
        } else {
          this.afterDelimiter = 0;
        }
        if (start === end) {
          this.pass(data, from, end, isDataSafe);
          return false;
        }
      }
      if (this.afterDelimiter === 2) {
        this.afterDelimiter = 0;
        if (data[start] === DASH) {
          // The closing delimiter: the epilogue after it is not passed on.
          this.pass(data, from, start + 1, isDataSafe);
          this.finished = true;
          return false;
        }
      } else if (this.afterDelimiter === 3) {
        this.afterDelimiter = 0;
        if (data[start] === LF) {
          start += 1;
          this.pass(data, from, start, isDataSafe);
          this.headers = new PartHeaderParser();
          if (start === end) return true;
          continue;
        }
      }
      this.pass(data, from, end, isDataSafe);
      return true;
    }
  }

  private endOfHeaders(parser: PartHeaderParser): void {
    this.headers = null;
    let block = Buffer.concat(this.held);
    this.held = [];

    let charset: string | null = null;
    const contentType = parser.fields.get("content-type");
    const parsed = contentType ? parseContentType(contentType.value) : undefined;
    if (contentType && parsed?.params.charset !== undefined) {
      charset = parsed.params.charset.toLowerCase();
      // The same header without its parameters: busboy sees the same type and no charset.
      block = Buffer.concat([
        block.subarray(0, contentType.start),
        Buffer.from(`Content-Type: ${parsed.type}/${parsed.subtype}`, "latin1"),
        block.subarray(contentType.end),
      ]);
    }

    const disposition = parser.fields.get("content-disposition");
    if (disposition && parseDisposition(disposition.value, this.paramDecoder)?.type === "form-data") {
      this.charsets.push(charset);
    }
    this.emit(block);
  }
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Labels read as UTF-8: what curl, Python and Java send, and US-ASCII, which UTF-8 contains. */
const UTF8_LABELS = new Set(["", "utf-8", "utf8", "us-ascii"]);

/**
 * A text part's value, from busboy's latin1 reading of its bytes, decoded by the charset the part
 * declared (`null`: none, read as UTF-8). `null` when the bytes are not text in that charset, or
 * the charset is not one `TextDecoder` knows: never a value with U+FFFD in place of bytes.
 */
export function decodePartText(latin1: string, charset: string | null): string | null {
  const bytes = Buffer.from(latin1, "latin1");
  try {
    if (charset === null || UTF8_LABELS.has(charset)) return STRICT_UTF8.decode(bytes);
    const decoder = new TextDecoder(charset, { fatal: true });
    // Node since 20.18.3 decodes windows-1252 (and the labels that mean it: iso-8859-1, latin1, ...)
    // as ISO-8859-1, turning € and curly quotes into C1 controls (nodejs/node#60888). The
    // Encoding Standard's table: bytes 0x80-0x9F are the only ones that differ.
    if (decoder.encoding === "windows-1252") {
      return latin1.replace(/[\u0080-\u009f]/g, (char) => WINDOWS_1252_C1.charAt(char.charCodeAt(0) - 0x80));
    }
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/** windows-1252's characters for bytes 0x80-0x9F, in order (five are the C1 controls themselves). */
const WINDOWS_1252_C1 =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const CRLF = Buffer.from("\r\n", "latin1");

// busboy's limits for one part's header block.
const MAX_HEADER_PAIRS = 2000;
const MAX_HEADER_SIZE = 16 * 1024;

const TOKEN = new Uint8Array(256);
for (const char of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
  TOKEN[char.charCodeAt(0)] = 1;
}

/** A byte of a header value: tab, visible ASCII, space, or any byte above DEL. */
const isValueByte = (code: number) => code === TAB || (code >= SPACE && code !== 0x7f);

interface HeaderField {
  value: string;
  /** Where the field (its name) starts in the header block. */
  start: number;
  /** Where its value ends: the CR of its last line. */
  end: number;
}

const NAME = 0;
const BEFORE_VALUE = 1;
const VALUE = 2;

/**
 * busboy 1.6's part-header parser (`HeaderParser` in lib/types/multipart.js), step for step, so
 * that it accepts and refuses exactly what busboy does, and also noting where each field lies in
 * the block. Like busboy it keeps the first occurrence of a header and drops pairs past the limit.
 */
class PartHeaderParser {
  readonly fields = new Map<string, HeaderField>();
  complete = false;
  private pairCount = 0;
  private byteCount = 0;
  private state = NAME;
  private name = "";
  private value = "";
  private crlf = 0;
  /** Bytes of the block read in earlier pushes. */
  private consumed = 0;
  private fieldStart = 0;
  private valueEnd = 0;

  /** Reads `chunk[pos, end)`: returns where the block ended, `end` when it goes on, or -1 when busboy refuses it. */
  push(chunk: Buffer, pos: number, end: number): number {
    const base = this.consumed - pos;
    let start = pos;
    while (pos < end) {
      if (this.state === NAME) {
        let done = false;
        for (; pos < end; ++pos) {
          if (this.byteCount === MAX_HEADER_SIZE) return -1;
          ++this.byteCount;
          const code = chunk[pos] as number;
          if (TOKEN[code] !== 1) {
            if (code !== COLON) return -1;
            this.name += chunk.toString("latin1", start, pos);
            if (this.name.length === 0) return -1;
            ++pos;
            done = true;
            this.state = BEFORE_VALUE;
            break;
          }
        }
        if (!done) {
          this.name += chunk.toString("latin1", start, pos);
          break;
        }
      }
      if (this.state === BEFORE_VALUE) {
        let done = false;
        for (; pos < end; ++pos) {
          if (this.byteCount === MAX_HEADER_SIZE) return -1;
          ++this.byteCount;
          const code = chunk[pos];
          if (code !== SPACE && code !== TAB) {
            start = pos;
            done = true;
            this.state = VALUE;
            break;
          }
        }
        if (!done) break;
      }
      if (this.crlf === 0) {
        for (; pos < end; ++pos) {
          if (this.byteCount === MAX_HEADER_SIZE) return -1;
          ++this.byteCount;
          const code = chunk[pos] as number;
          if (!isValueByte(code)) {
            if (code !== CR) return -1;
            ++this.crlf;
            this.valueEnd = base + pos;
            break;
          }
        }
        this.value += chunk.toString("latin1", start, pos++);
      } else if (this.crlf === 1) {
        if (this.byteCount === MAX_HEADER_SIZE) return -1;
        ++this.byteCount;
        if (chunk[pos++] !== LF) return -1;
        ++this.crlf;
      } else if (this.crlf === 2) {
        if (this.byteCount === MAX_HEADER_SIZE) return -1;
        ++this.byteCount;
        const code = chunk[pos];
        if (code === SPACE || code === TAB) {
          // A folded value goes on on the next line.
          start = pos;
          this.crlf = 0;
        } else {
          if (++this.pairCount < MAX_HEADER_PAIRS) {
            const name = this.name.toLowerCase();
            if (!this.fields.has(name)) {
              this.fields.set(name, { value: this.value, start: this.fieldStart, end: this.valueEnd });
            }
          }
          if (code === CR) {
            ++this.crlf;
            ++pos;
          } else {
            start = pos;
            this.crlf = 0;
            this.state = NAME;
            this.name = "";
            this.value = "";
            this.fieldStart = base + pos;
          }
        }
      } else {
        if (this.byteCount === MAX_HEADER_SIZE) return -1;
        ++this.byteCount;
        if (chunk[pos++] !== LF) return -1;
        this.complete = true;
        return pos;
      }
    }
    this.consumed = base + end;
    return end;
  }
}
