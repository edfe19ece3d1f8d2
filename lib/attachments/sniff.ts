import { isUtf8 } from "node:buffer";
import { AbstractTokenizer, EndOfStreamError, type IFileInfo, type IReadChunkOptions } from "strtok3";
import { cleanFileName } from "./filename";

/**
 * What an attachment's BYTES say it is. The declared MIME type and the file name are never consulted
 * for the type; the name only chooses between `txt` and `md` for a file that is already plain text.
 */
export interface AttachmentType {
  ext: "pdf" | "docx" | "png" | "jpg" | "txt" | "md";
  contentType: string;
}

export const ATTACHMENT_CONTENT_TYPES = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  png: "image/png",
  jpg: "image/jpeg",
  txt: "text/plain",
  md: "text/markdown",
} as const satisfies Record<AttachmentType["ext"], string>;

export type AttachmentRefusal = "empty" | "unsupported";

/** User-facing wording for each refusal, so every caller says the same thing. */
export const ATTACHMENT_REFUSAL_MESSAGES: Readonly<Record<AttachmentRefusal, string>> = {
  empty: "The attached file is empty (0 bytes). Attach a file with content, or send the form without one.",
  unsupported:
    "The attached file is not a supported type. Attach a PDF, a Word document (.docx), a PNG or JPEG image, or a UTF-8 text or Markdown file.",
};

export type AttachmentInspection =
  { ok: true; type: AttachmentType } | { ok: false; reason: AttachmentRefusal; message: string };

/**
 * Decide the type of an attachment from its bytes.
 *
 * @param chunks the file's bytes as received (not concatenated; any number of chunks, total up to 10 MiB —
 *   the size limit is enforced by the caller). The chunks are only read, never modified, and never
 *   copied into one buffer.
 * @param originalName the name the client sent; used only to store text as Markdown when it ends in `.md`.
 * @returns the type, or `null` when the file is refused (empty, or not one of the allowed types).
 */
export async function sniffAttachment(
  chunks: readonly Uint8Array[],
  originalName: string,
): Promise<AttachmentType | null> {
  const inspection = await inspectAttachment(chunks, originalName);
  return inspection.ok ? inspection.type : null;
}

/** Like {@link sniffAttachment}, but says why a file is refused (`empty` vs `unsupported`). */
export async function inspectAttachment(
  chunks: readonly Uint8Array[],
  originalName: string,
): Promise<AttachmentInspection> {
  const scan = new TextScan();
  for (const chunk of chunks) scan.update(chunk);
  return inspectBytes(new ChunksSource(chunks), scan.finish(), originalName);
}

/** Random access to a file's bytes wherever they are: chunks in memory, an upload's temporary file. */
export interface ByteSource {
  readonly size: number;
  /** Copies up to `target.byteLength` bytes from `position` into `target`; answers how many. */
  read(target: Uint8Array, position: number): Promise<number>;
}

/** What a file's bytes say about being plain text, gathered by `TextScan` as they arrive. */
export interface TextVerdict {
  /** Valid UTF-8 (a leading BOM allowed) with no NUL byte. */
  text: boolean;
  /** `text`, and no other control byte but tab, line feed, form feed and carriage return. */
  printable: boolean;
}

/**
 * Decides a file's type from its bytes: the binary formats from their structure (read from
 * `source`, a few bytes for most, the ZIP entries of a DOCX), text from `text`, which the caller
 * gathered over every byte (a file streamed to disk is scanned on its way there).
 */
export async function inspectBytes(
  source: ByteSource,
  text: TextVerdict,
  originalName: string,
): Promise<AttachmentInspection> {
  if (source.size === 0) return refuse("empty");

  // Loaded by the first file, not with the route: most briefs come without one.
  const { fileTypeFromTokenizer } = await import("file-type");
  let detected: { ext: string; mime: string } | undefined;
  try {
    detected = await fileTypeFromTokenizer(new SourceTokenizer(source));
  } catch {
    // A parser error means the bytes are malformed for whatever they claim to be: not something we accept.
    return refuse("unsupported");
  }

  if (detected) {
    const head = new Uint8Array(Math.min(16, source.size));
    const binary = allowedBinaryType(detected, head.subarray(0, await readFully(source, head, 0)));
    if (binary) return accept(binary);
    // Some signatures are plain ASCII ("BM" for BMP, "GIF8", "<?xml", "%!"): a file that matches one
    // yet holds nothing but printable UTF-8 text is a text file that happens to start that way.
    if (!text.printable) return refuse("unsupported");
  } else if (!text.text) {
    return refuse("unsupported");
  }
  return accept(/\.md$/i.test(cleanFileName(originalName)) ? "md" : "txt");
}

function accept(ext: AttachmentType["ext"]): AttachmentInspection {
  return { ok: true, type: { ext, contentType: ATTACHMENT_CONTENT_TYPES[ext] } };
}

function refuse(reason: AttachmentRefusal): AttachmentInspection {
  return { ok: false, reason, message: ATTACHMENT_REFUSAL_MESSAGES[reason] };
}

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_MAGIC = [0xff, 0xd8, 0xff];
const ZIP_LOCAL_HEADER_MAGIC = [0x50, 0x4b, 0x03, 0x04]; // "PK\3\4"

/**
 * Maps file-type's verdict to an allowed type. The exact MIME type is compared (so `apng`, `jls`, `docm`,
 * `dotx`, `xlsx`, `pptx`, `zip`... are refused), and the format's signature must sit at byte 0: file-type
 * skips a leading UTF-8 BOM before detecting, so "BOM + %PDF" would otherwise pass as a PDF.
 */
function allowedBinaryType(
  detected: { ext: string; mime: string },
  head: Uint8Array,
): AttachmentType["ext"] | null {
  switch (detected.mime) {
    case ATTACHMENT_CONTENT_TYPES.pdf:
      return startsWith(head, PDF_MAGIC) ? "pdf" : null;
    case ATTACHMENT_CONTENT_TYPES.docx:
      return startsWith(head, ZIP_LOCAL_HEADER_MAGIC) ? "docx" : null;
    case ATTACHMENT_CONTENT_TYPES.png:
      return startsWith(head, PNG_MAGIC) ? "png" : null;
    case ATTACHMENT_CONTENT_TYPES.jpg:
      return detected.ext === "jpg" && startsWith(head, JPEG_MAGIC) ? "jpg" : null;
    default:
      return null;
  }
}

function startsWith(head: Uint8Array, magic: readonly number[]): boolean {
  return head.byteLength >= magic.length && magic.every((byte, index) => head[index] === byte);
}

/** Reads until `target` is full or the source ends; answers how many bytes were read. */
async function readFully(source: ByteSource, target: Uint8Array, position: number): Promise<number> {
  let filled = 0;
  while (filled < target.byteLength) {
    const count = await source.read(target.subarray(filled), position + filled);
    if (count <= 0) break;
    filled += count;
  }
  return filled;
}

/**
 * Control bytes that no printable text holds: all of C0 but tab, line feed, form feed and carriage
 * return; DEL. Indexed, not `for...of`: until V8 optimises the loop, an iterator hands out a result
 * object per byte, megabytes of garbage per upload on a fresh server.
 */
function hasNonTextControl(chunk: Uint8Array): boolean {
  for (let index = 0; index < chunk.byteLength; index++) {
    const byte = chunk[index] as number;
    if ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d) || byte === 0x7f) {
      return true;
    }
  }
  return false;
}

/**
 * Gathers a `TextVerdict` over a file's chunks as they arrive: valid UTF-8 across chunk boundaries
 * (a leading BOM is valid UTF-8 too), NUL bytes, other control bytes. Validated in place with
 * `isUtf8`, never decoded: a 10 MiB upload makes no strings, only the up to 3 bytes of a character
 * split between two chunks are copied. It stops looking at the first invalid byte.
 */
export class TextScan {
  /** The start of a character that the previous chunk ended in the middle of. */
  private carry: Uint8Array = new Uint8Array(0);
  private utf8 = true;
  private nul = false;
  private control = false;

  update(chunk: Uint8Array): void {
    if (!this.utf8 || this.nul || chunk.byteLength === 0) return;
    if (chunk.includes(0)) {
      this.nul = true;
      return;
    }
    this.validate(chunk);
    // Control bytes only matter to a file that is text: a binary file (most uploads: a PDF's second
    // line is not UTF-8) is not read byte by byte in JavaScript at all.
    if (this.utf8 && !this.control && hasNonTextControl(chunk)) this.control = true;
  }

  /** Whether the bytes so far are UTF-8, a character split between chunks included. */
  private validate(chunk: Uint8Array): void {
    let body = chunk;
    if (this.carry.byteLength > 0) {
      // Complete the split character with the bytes it still needs (its lead byte says how many).
      const need = sequenceLength(this.carry[0] ?? 0) - this.carry.byteLength;
      const head = Buffer.concat([this.carry, chunk.subarray(0, need)]);
      if (head.byteLength < this.carry.byteLength + need) {
        this.carry = head; // the chunk was shorter than what the character still needs
        return;
      }
      if (!isUtf8(head)) {
        this.utf8 = false;
        return;
      }
      body = chunk.subarray(need);
    }
    const split = incompleteTail(body);
    this.carry = split === 0 ? new Uint8Array(0) : Uint8Array.from(body.subarray(body.byteLength - split));
    if (!isUtf8(body.subarray(0, body.byteLength - split))) this.utf8 = false;
  }

  finish(): TextVerdict {
    // A file that ends in the middle of a character is not text.
    const text = this.utf8 && !this.nul && this.carry.byteLength === 0;
    return { text, printable: text && !this.control };
  }
}

/** How many bytes the UTF-8 sequence that `lead` starts has (1 for anything that is no lead byte). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  return 1;
}

/**
 * How many bytes at the end of `bytes` start a character that continues in the next chunk: 0 when
 * the last character is whole (or the bytes are not UTF-8 anyway: `isUtf8` then says so).
 */
function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.byteLength); back++) {
    const byte = bytes[bytes.byteLength - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    const length = sequenceLength(byte);
    return length > back ? back : 0;
  }
  return 0;
}

/** Chunks in memory as a `ByteSource`, read in place (no concatenated copy). */
class ChunksSource implements ByteSource {
  readonly size: number;
  private readonly chunks: readonly Uint8Array[];
  /** starts[i] is the file offset of chunks[i]'s first byte. */
  private readonly starts: number[] = [];

  constructor(chunks: readonly Uint8Array[]) {
    this.chunks = chunks.filter((chunk) => chunk.byteLength > 0);
    let offset = 0;
    for (const chunk of this.chunks) {
      this.starts.push(offset);
      offset += chunk.byteLength;
    }
    this.size = offset;
  }

  read(target: Uint8Array, position: number): Promise<number> {
    const length = Math.max(0, Math.min(this.size - position, target.byteLength));
    let written = 0;
    let index = this.chunkIndexAt(position);
    while (written < length) {
      const chunk = this.chunks[index];
      const start = this.starts[index];
      if (chunk === undefined || start === undefined) break;
      const from = position + written - start;
      const count = Math.min(chunk.byteLength - from, length - written);
      target.set(chunk.subarray(from, from + count), written);
      written += count;
      index++;
    }
    return Promise.resolve(written);
  }

  /** Index of the chunk holding file offset `position` (binary search; the chunks are non-empty). */
  private chunkIndexAt(position: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle] ?? Infinity) <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

/**
 * A random-access strtok3 tokenizer over a `ByteSource`, so file-type reads the bytes where they are
 * and knows the size (file-type applies much tighter limits to unknown-size streams, e.g. it gives
 * up on a ZIP entry over 1 MiB, which would turn a DOCX whose `[Content_Types].xml` is not the first
 * entry, as LibreOffice writes them, into a plain ZIP).
 */
class SourceTokenizer extends AbstractTokenizer {
  override readonly fileInfo: IFileInfo & { size: number };
  private readonly source: ByteSource;

  constructor(source: ByteSource) {
    super();
    this.source = source;
    this.fileInfo = { size: source.size };
  }

  supportsRandomAccess(): boolean {
    return true;
  }

  setPosition(position: number): void {
    this.validateLength(position, "position");
    this.position = position;
  }

  async readBuffer(target: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const normalized = this.normalizeOptions(target, options);
    const bytesRead = await this.peekBuffer(target, normalized);
    this.position = normalized.position + bytesRead;
    return bytesRead;
  }

  async peekBuffer(target: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const { position, length, mayBeLess } = this.normalizeOptions(target, options);
    const available = Math.max(0, Math.min(this.fileInfo.size - position, length));
    if (!mayBeLess && available < length) throw new EndOfStreamError();
    const read = await readFully(this.source, target.subarray(0, available), position);
    if (read < available) throw new EndOfStreamError();
    return read;
  }
}
