import StreamSearch from "streamsearch";

/**
 * The charset each part of a `multipart/form-data` body declares, handed to busboy's listeners
 * with the part, so that a text part's exact bytes are decoded once.
 *
 * busboy 1.6 decodes a text part by the charset its `Content-Type` names, lossily (bytes that are
 * not UTF-8 become U+FFFD, `base64` re-encodes the text, a charset it does not list gives
 * `undefined`), and its 'field' event tells the part's media type but not that charset; it has no
 * option to leave parts undecoded. So this stage sits between the body's chunks and busboy. It
 * follows the body the way busboy does (the same delimiter search, the same part-header grammar
 * and limits) and rewrites each part header block that has a Content-Type or a
 * Content-Transfer-Encoding into the first Content-Disposition as it came, the media type without
 * parameters and, when the part declared a charset, `Content-Transfer-Encoding: charset=<label>`,
 * which busboy hands every listener as `info.encoding` (read back by `declaredCharset`; a part's
 * own Content-Transfer-Encoding never reaches busboy). busboy then reads every text part with its
 * default charset, latin1, a lossless view of the bytes, for `decodePartText`. Part contents, files
 * included, pass through byte for byte, and so do header blocks with neither header (a browser's
 * text fields). As the charset travels with its part, which parts busboy emits is busboy's own
 * reading of their Content-Disposition, never this stage's.
 */
export class PartCharsets {
  /**
   * The body broke a rule of part headers: a header busboy refuses, a boundary delimiter inside a
   * part's header block (where busboy's reading depends on how the bytes were chunked), or a block
   * that declares a charset so near busboy's 16 KiB cap (some 30 bytes) that its rewrite would be
   * over it. Nothing more is passed on; the form is malformed.
   */
  malformed = false;

  private readonly search: StreamSearch;
  private readonly delimiter: Buffer;
  /** After the closing delimiter busboy reads nothing more; neither does this stage. */
  private finished = false;
  /** The bytes for busboy from the current `write` or `end`. */
  private output: Buffer[] = [];
  /** busboy gives its own delimiter search a CRLF before the body; ours has one too, not passed on. */
  private skipBytes = CRLF.length;
  /** A part's header block while it is read, held back until its blank line; `null` elsewhere. */
  private header: Buffer[] | null = null;
  private headerBytes = 0;
  /** The last bytes held of the header block, where its blank line may begin. */
  private headerTail = Buffer.alloc(0);
  /** Where busboy is just after a delimiter: 1 after it, 2 after a dash, 3 after a CR (its `matchPostBoundary`). */
  private afterDelimiter = 0;

  constructor(boundary: string) {
    // In UTF-8, as busboy's own search has it from the same string.
    this.delimiter = Buffer.from(`\r\n--${boundary}`, "utf8");
    this.search = new StreamSearch(this.delimiter, (isMatch, data, start, end, isDataSafe) =>
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
      this.releaseHeader();
    }
    return this.takeOutput();
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

  private releaseHeader(): void {
    for (const bytes of this.header ?? []) this.emit(bytes);
    this.header = null;
  }

  private fail(): void {
    this.releaseHeader();
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
      if (this.header) return this.fail();
      this.afterDelimiter = 1;
    }
    this.emit(this.delimiter);
  }

  /** Follows busboy through bytes between delimiters; `false` where busboy returns early. */
  private read(data: Buffer, start: number, end: number, isDataSafe: boolean): boolean {
    if (this.header) {
      this.readHeader(data, start, end, isDataSafe);
      return true;
    }
    if (start === end) return true;
    const from = start;
    if (this.afterDelimiter === 1) {
      const code = data[start];
      this.afterDelimiter = code === DASH ? 2 : code === CR ? 3 : 0;
      if (this.afterDelimiter !== 0 && ++start === end) {
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
        this.pass(data, from, start + 1, isDataSafe);
        this.header = [];
        this.headerBytes = 0;
        this.headerTail = Buffer.alloc(0);
        this.readHeader(data, start + 1, end, isDataSafe);
        return true;
      }
    }
    this.pass(data, from, end, isDataSafe);
    return true;
  }

  /**
   * Reads bytes of a part's header block: holds them (copied) until the block's blank line has
   * come, then passes on the block for busboy, and the bytes after it as they are.
   */
  private readHeader(data: Buffer, start: number, end: number, isDataSafe: boolean): void {
    const bytes = data.subarray(start, end);
    // The blank line may begin in the last bytes held before.
    const tail = this.headerTail;
    const seam = Buffer.concat([tail, bytes.subarray(0, BLANK_LINE.length - 1)]).indexOf(BLANK_LINE);
    // Where the blank line starts in `bytes`: below 0 when it started in the tail.
    const blankLine = seam === -1 ? bytes.indexOf(BLANK_LINE) : seam - tail.length;
    if (seam === -1 && blankLine === -1) {
      (this.header as Buffer[]).push(Buffer.from(bytes));
      this.headerTail = Buffer.concat([tail, bytes]).subarray(-(BLANK_LINE.length - 1));
      this.headerBytes += bytes.length;
      // Longer than busboy's cap with no end yet: over it whatever follows, since busboy counts every byte.
      if (this.headerBytes >= MAX_HEADER_SIZE) this.fail();
      return;
    }
    const blockEnd = blankLine + BLANK_LINE.length;
    const block = Buffer.concat([...(this.header as Buffer[]), bytes.subarray(0, blockEnd)]);
    this.header = null;
    const forBusboy = headerBlockForBusboy(block.toString("latin1"));
    if (forBusboy === null) {
      this.emit(block);
      this.malformed = true;
      return;
    }
    this.emit(forBusboy === undefined ? block : Buffer.from(forBusboy, "latin1"));
    this.pass(data, start + blockEnd, end, isDataSafe);
  }
}

/** The prefix of `info.encoding` that carries a part's declared charset (see `PartCharsets`). */
const CHARSET_TAG = "charset=";

/**
 * The charset a part declared, lowercased, from the `info.encoding` busboy gave its listener for a
 * body that went through `PartCharsets`; `null` when it declared none.
 */
export function declaredCharset(encoding: string): string | null {
  return encoding.startsWith(CHARSET_TAG) ? encoding.slice(CHARSET_TAG.length) : null;
}

/**
 * What busboy is to read for a part's header block (latin1, ending in its blank line): `undefined`
 * for the block as it came, the rewritten block (see `PartCharsets`), or `null` when busboy refuses
 * the block.
 */
function headerBlockForBusboy(block: string): string | null | undefined {
  const read = readHeaderBlock(block);
  if (read === null) return null;
  if (!read.typed) return undefined;
  const disposition = read.headers.get("content-disposition");
  const contentType = parseContentType(read.headers.get("content-type") ?? "");
  const charset = contentType?.params.get("charset");
  let rewritten = "";
  // A value that starts with blanks (after a folded line) keeps them as a folded line.
  if (disposition !== undefined) {
    rewritten += `Content-Disposition:${/^[ \t]/.test(disposition) ? "\r\n" : " "}${disposition}\r\n`;
  }
  // busboy's own reading of a missing or malformed Content-Type.
  rewritten += `Content-Type: ${contentType?.mediaType ?? "text/plain"}\r\n`;
  if (charset !== undefined) {
    rewritten += `Content-Transfer-Encoding: ${CHARSET_TAG}${charset.toLowerCase()}\r\n`;
  }
  rewritten += "\r\n";
  // A few bytes longer at most, but past busboy's cap it would be refused where the block was not.
  return readHeaderBlock(rewritten) === null ? null : rewritten;
}

/**
 * A part's header block as busboy 1.6's part-header parser reads it (`HeaderParser` in
 * lib/types/multipart.js): the first value of each header (names lowercased) among the first
 * 1,999, and whether any line is a Content-Type or Content-Transfer-Encoding; `null` where busboy
 * refuses the block.
 */
function readHeaderBlock(block: string): { headers: Map<string, string>; typed: boolean } | null {
  const headers = new Map<string, string>();
  let typed = false;
  let pairs = 0;
  let field: [string, string] | null = null;
  // busboy counts towards its cap the first byte of each value twice, and of each line after the first.
  let counted = block.length;
  const keep = () => {
    if (field && ++pairs < MAX_HEADER_PAIRS && !headers.has(field[0])) headers.set(field[0], field[1]);
  };
  for (const line of block.slice(0, -BLANK_LINE.length).split("\r\n")) {
    if (field && FOLDED_LINE.test(line)) {
      field[1] += line;
      counted += 1;
      continue;
    }
    const match = HEADER_LINE.exec(line);
    if (!match) return null;
    counted += field ? 2 : 1;
    keep();
    field = [(match[1] as string).toLowerCase(), match[2] as string];
    if (field[0] === "content-type" || field[0] === "content-transfer-encoding") typed = true;
  }
  keep();
  return counted > MAX_HEADER_SIZE ? null : { headers, typed };
}

const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]";
/** busboy's quoted string, where a backslash may stand before any character it allows, or a quote or backslash. */
const QUOTED = '"(?:[\\t\\x20\\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t\\x20-\\x7e\\x80-\\xff])*"';
const PARAMETER = `[ \\t]*;[ \\t]*(${TOKEN}*)=(${TOKEN}+|${QUOTED})`;
const CONTENT_TYPE = new RegExp(`^(${TOKEN}+/${TOKEN}+)((?:${PARAMETER})*)[ \\t]*$`);

export interface ContentType {
  /** `type/subtype`, lowercased. */
  mediaType: string;
  /** Parameter names lowercased, the first of each; quoted values unquoted. */
  params: Map<string, string>;
}

/** A Content-Type value as busboy 1.6 reads one (the request's and each part's); `null` where busboy finds none. */
export function parseContentType(value: string): ContentType | null {
  const match = CONTENT_TYPE.exec(value);
  if (!match) return null;
  const params = new Map<string, string>();
  for (const [, name, raw] of (match[2] as string).matchAll(new RegExp(PARAMETER, "g"))) {
    const key = (name as string).toLowerCase();
    const quoted = (raw as string).startsWith('"');
    if (!params.has(key)) params.set(key, quoted ? unquote(raw as string) : (raw as string));
  }
  return { mediaType: (match[1] as string).toLowerCase(), params };
}

/** busboy keeps a backslash before anything but a quote or a backslash. */
const unquote = (quoted: string) => quoted.slice(1, -1).replace(/\\([\\"])/g, "$1");

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
const CRLF = Buffer.from("\r\n", "latin1");
const BLANK_LINE = Buffer.from("\r\n\r\n", "latin1");

// busboy's limits for one part's header block.
const MAX_HEADER_PAIRS = 2000;
const MAX_HEADER_SIZE = 16 * 1024;

/** A header line as busboy reads one: a token, a colon, blanks, then a value of tabs and bytes from space up, DEL excepted. */
const HEADER_LINE = new RegExp(`^(${TOKEN}+):[ \\t]*([\\t\\x20-\\x7e\\x80-\\xff]*)$`);
/** A folded line: its value goes on, its blanks included. */
const FOLDED_LINE = /^[ \t][\t\x20-\x7e\x80-\xff]*$/;
