import { fileTypeFromTokenizer } from "file-type";
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
  const size = chunks.reduce((total, chunk) => total + chunk.byteLength, 0);
  if (size === 0) return refuse("empty");

  let detected: { ext: string; mime: string } | undefined;
  try {
    detected = await fileTypeFromTokenizer(new ChunksTokenizer(chunks, size));
  } catch {
    // A parser error means the bytes are malformed for whatever they claim to be: not something we accept.
    return refuse("unsupported");
  }

  if (detected) {
    const binary = allowedBinaryType(detected, chunks);
    if (binary) return accept(binary);
    // Some signatures are plain ASCII ("BM" for BMP, "GIF8", "<?xml", "%!"): a file that matches one
    // yet holds nothing but printable UTF-8 text is a text file that happens to start that way.
    if (!isUtf8Text(chunks, { printableOnly: true })) return refuse("unsupported");
  } else if (!isUtf8Text(chunks)) {
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
  chunks: readonly Uint8Array[],
): AttachmentType["ext"] | null {
  switch (detected.mime) {
    case ATTACHMENT_CONTENT_TYPES.pdf:
      return startsWith(chunks, PDF_MAGIC) ? "pdf" : null;
    case ATTACHMENT_CONTENT_TYPES.docx:
      return startsWith(chunks, ZIP_LOCAL_HEADER_MAGIC) ? "docx" : null;
    case ATTACHMENT_CONTENT_TYPES.png:
      return startsWith(chunks, PNG_MAGIC) ? "png" : null;
    case ATTACHMENT_CONTENT_TYPES.jpg:
      return detected.ext === "jpg" && startsWith(chunks, JPEG_MAGIC) ? "jpg" : null;
    default:
      return null;
  }
}

function startsWith(chunks: readonly Uint8Array[], magic: readonly number[]): boolean {
  let index = 0;
  for (const chunk of chunks) {
    for (const byte of chunk) {
      if (index === magic.length) return true;
      if (byte !== magic[index]) return false;
      index++;
    }
  }
  return index === magic.length;
}

/** Decode in bounded windows so a single 10 MiB chunk never becomes one 10 MiB string. */
const DECODE_WINDOW_BYTES = 64 * 1024;

/** Control bytes that no printable text holds: all of C0 but tab, line feed, form feed and carriage return; DEL. */
function hasNonTextControl(chunk: Uint8Array): boolean {
  for (const byte of chunk) {
    if ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d) || byte === 0x7f) {
      return true;
    }
  }
  return false;
}

/**
 * Plain text: valid UTF-8 across chunk boundaries (a leading BOM is fine: the decoder consumes it),
 * and no NUL byte anywhere; with `printableOnly`, no other control byte either.
 */
function isUtf8Text(chunks: readonly Uint8Array[], { printableOnly = false } = {}): boolean {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for (const chunk of chunks) {
      if (chunk.includes(0)) return false;
      if (printableOnly && hasNonTextControl(chunk)) return false;
      for (let offset = 0; offset < chunk.byteLength; offset += DECODE_WINDOW_BYTES) {
        decoder.decode(chunk.subarray(offset, offset + DECODE_WINDOW_BYTES), { stream: true });
      }
    }
    decoder.decode(); // Flush: throws if the file ends in the middle of a multi-byte sequence.
    return true;
  } catch {
    return false;
  }
}

/**
 * A random-access strtok3 tokenizer over the received chunks, so file-type reads them in place: no
 * concatenation, and the size is known (file-type applies much tighter limits to unknown-size streams,
 * e.g. it gives up on a ZIP entry over 1 MiB, which would turn a DOCX whose `[Content_Types].xml` is not
 * the first entry — as LibreOffice writes them — into a plain ZIP).
 */
class ChunksTokenizer extends AbstractTokenizer {
  override readonly fileInfo: IFileInfo & { size: number };
  private readonly chunks: readonly Uint8Array[];
  /** starts[i] is the file offset of chunks[i]'s first byte. */
  private readonly starts: number[];

  constructor(chunks: readonly Uint8Array[], size: number) {
    super();
    this.chunks = chunks.filter((chunk) => chunk.byteLength > 0);
    this.starts = [];
    let offset = 0;
    for (const chunk of this.chunks) {
      this.starts.push(offset);
      offset += chunk.byteLength;
    }
    this.fileInfo = { size };
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
    this.copyOut(target, position, available);
    return available;
  }

  /** Copies `length` bytes starting at file offset `position` into the start of `target`. */
  private copyOut(target: Uint8Array, position: number, length: number): void {
    let written = 0;
    let index = this.chunkIndexAt(position);
    while (written < length) {
      const chunk = this.chunks[index];
      const start = this.starts[index];
      if (chunk === undefined || start === undefined) throw new EndOfStreamError();
      const from = position + written - start;
      const count = Math.min(chunk.byteLength - from, length - written);
      target.set(chunk.subarray(from, from + count), written);
      written += count;
      index++;
    }
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
