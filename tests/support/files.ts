/**
 * Real test files, built in memory. Each "make" function returns bytes that are genuinely valid for their
 * format (a reader for that format opens them), so the type detection is tested against the real thing,
 * not against a few magic bytes. The refused ones are real too: a real ZIP, a real XLSX package, a real GIF...
 *
 * `makeFileOfSize(kind, size)` builds a valid file of an exact byte size (e.g. exactly 10 MiB, or 10 MiB + 1),
 * by padding inside the format (PDF comment lines, PNG tEXt chunk, JPEG COM segments, DOCX stored XML
 * whitespace, text filler lines).
 */
import { deflateSync } from "node:zlib";
import { zipSync, type Zippable } from "fflate";

/** The attachment size limit: 10 MiB. */
export const TEN_MIB = 10 * 1024 * 1024;

/** A fixed timestamp, so the ZIP-based files are byte-for-byte reproducible. */
const ZIP_MTIME = new Date("2024-01-02T03:04:06Z");

const utf8 = new TextEncoder();

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** Latin-1 bytes of a string made of code units 0–255 (PDF syntax, PNG text, binary headers). */
function latin1(value: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(value.length);
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code > 0xff) throw new RangeError(`not a Latin-1 string: U+${code.toString(16)}`);
    out[index] = code;
  }
  return out;
}

/** Splits bytes into views of `chunkSize` bytes (no copy), like a request body arriving in chunks. */
export function splitIntoChunks(bytes: Uint8Array, chunkSize = 64 * 1024): Uint8Array[] {
  if (!Number.isInteger(chunkSize) || chunkSize < 1)
    throw new RangeError("chunkSize must be a positive integer");
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.byteLength; offset += chunkSize) {
    chunks.push(bytes.subarray(offset, offset + chunkSize));
  }
  return chunks;
}

/** Splits bytes at the given offsets (no copy): `splitAt(b, 3)` is `[b[0..3), b[3..)]`. */
export function splitAt(bytes: Uint8Array, ...offsets: number[]): Uint8Array[] {
  const bounds = [0, ...offsets, bytes.byteLength];
  return bounds.slice(1).map((end, index) => bytes.subarray(bounds[index], end));
}

/** A `File` as a browser would send it in a multipart form (the declared type is only a claim). */
export function toFile(bytes: Uint8Array, name: string, declaredType = "application/octet-stream"): File {
  return new File([new Uint8Array(bytes)], name, { type: declaredType });
}

// ---------------------------------------------------------------------------------------------------------
// PDF

/**
 * A one-page PDF 1.4 showing `text` in Helvetica: catalog, page tree, page, content stream, font, a classic
 * cross-reference table with exact byte offsets, trailer, `startxref`, `%%EOF`.
 */
export function makePdf(
  text = "Project brief: a new website for the studio.",
  options: { size?: number } = {},
) {
  if (options.size === undefined) return buildPdf(text, 0, "\n");
  const size = options.size;
  // The trailing end-of-line after %%EOF may be "\n", absent or "\r\n": 2 bytes of slack for the rare size
  // that the comment padding cannot hit because the startxref number gains a digit.
  for (const eol of ["\n", "", "\r\n"]) {
    let padding = size - buildPdf(text, 0, eol).byteLength;
    for (let attempt = 0; attempt < 4 && padding >= 0; attempt++) {
      const pdf = buildPdf(text, padding, eol);
      if (pdf.byteLength === size) return pdf;
      padding -= pdf.byteLength - size;
    }
  }
  throw new RangeError(`cannot build a PDF of exactly ${size} bytes (too small?)`);
}

function pdfString(text: string): string {
  const printable = text.replace(/[^\x20-\x7e]/g, "?");
  return `(${printable.replace(/[\\()]/g, (character) => `\\${character}`)})`;
}

/** `count` bytes of PDF comment lines (or a lone newline for 1 byte): ignored by readers. */
function pdfCommentPadding(count: number): string {
  const lines: string[] = [];
  let remaining = count;
  while (remaining >= 2) {
    let length = Math.min(80, remaining);
    if (remaining - length === 1) length--;
    lines.push(`%${"~".repeat(length - 2)}\n`);
    remaining -= length;
  }
  if (remaining === 1) lines.push("\n");
  return lines.join("");
}

function buildPdf(text: string, padding: number, finalEol: string): Uint8Array<ArrayBuffer> {
  const content = `BT /F1 18 Tf 72 720 Td ${pdfString(text)} Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
  ];
  let body = `%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n${pdfCommentPadding(padding)}`;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefOffset = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefOffset}\n%%EOF${finalEol}`;
  return latin1(body);
}

// ---------------------------------------------------------------------------------------------------------
// PNG

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(...parts: Uint8Array[]): number {
  let crc = 0xffffffff;
  for (const part of parts) {
    for (const byte of part) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const header = new Uint8Array(8);
  const view = new DataView(header.buffer);
  view.setUint32(0, data.byteLength);
  header.set(latin1(type), 4);
  const crc = new Uint8Array(4);
  new DataView(crc.buffer).setUint32(0, crc32(header.subarray(4), data));
  return concatBytes([header, data, crc]);
}

const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Length + type + CRC of a chunk, plus the "Comment\0" keyword of the padding tEXt chunk. */
const PNG_TEXT_CHUNK_OVERHEAD = 12 + "Comment\0".length;

/** A truecolour 8-bit PNG with a colour gradient: signature, IHDR, IDAT (zlib), optional tEXt, IEND. */
export function makePng(width = 4, height = 3, options: { size?: number } = {}): Uint8Array<ArrayBuffer> {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError("PNG dimensions must be positive integers");
  }
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace

  const raw = new Uint8Array(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    raw[row] = 0; // filter type None
    for (let x = 0; x < width; x++) {
      const [r, g, b] = gradient(x, y, width, height);
      raw.set([r, g, b], row + 1 + x * 3);
    }
  }

  const parts = [PNG_SIGNATURE, pngChunk("IHDR", ihdr), pngChunk("IDAT", deflateSync(raw))];
  const end = pngChunk("IEND", new Uint8Array(0));
  if (options.size === undefined) return concatBytes([...parts, end]);

  const missing = options.size - concatBytes([...parts, end]).byteLength;
  if (missing === 0) return concatBytes([...parts, end]);
  if (missing < PNG_TEXT_CHUNK_OVERHEAD) {
    throw new RangeError(`cannot pad a ${width}x${height} PNG to exactly ${options.size} bytes`);
  }
  const text = latin1(`Comment\0${" ".repeat(missing - PNG_TEXT_CHUNK_OVERHEAD)}`);
  return concatBytes([...parts, pngChunk("tEXt", text), end]);
}

function gradient(x: number, y: number, width: number, height: number): [number, number, number] {
  return [
    Math.round((x / Math.max(1, width - 1)) * 255),
    Math.round((y / Math.max(1, height - 1)) * 255),
    128,
  ];
}

// ---------------------------------------------------------------------------------------------------------
// JPEG: a small baseline (SOF0) JFIF encoder — YCbCr 4:4:4, the standard (Annex K) quantisation and Huffman
// tables, a real forward DCT. Enough for a decodable colour image.

const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7,
  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46,
  53, 60, 61, 54, 47, 55, 62, 63,
];

/** Annex K.1 luminance and chrominance quantisation tables, natural (row-major) order. */
const LUMA_QUANT = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22,
  29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103,
  121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const CHROMA_QUANT = [
  17,
  18,
  24,
  47,
  99,
  99,
  99,
  99,
  18,
  21,
  26,
  66,
  99,
  99,
  99,
  99,
  24,
  26,
  56,
  99,
  99,
  99,
  99,
  99,
  47,
  66,
  99,
  99,
  99,
  99,
  99,
  99,
  ...Array<number>(32).fill(99),
];

interface HuffmanSpec {
  bits: number[]; // number of codes of each length 1..16
  values: number[];
}

const DC_LUMA: HuffmanSpec = {
  bits: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
  values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
};
const DC_CHROMA: HuffmanSpec = {
  bits: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
  values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
};
const AC_LUMA: HuffmanSpec = {
  bits: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
  values: [
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22,
    0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33,
    0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34,
    0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55,
    0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76,
    0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96,
    0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5,
    0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4,
    0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1,
    0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
  ],
};
const AC_CHROMA: HuffmanSpec = {
  bits: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
  values: [
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13,
    0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62,
    0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26, 0x27, 0x28, 0x29,
    0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54,
    0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75,
    0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94,
    0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3,
    0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2,
    0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea,
    0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
  ],
};

/** value -> [code, length], built as in Annex C. */
function huffmanCodes(spec: HuffmanSpec): Map<number, [number, number]> {
  const total = spec.bits.reduce((sum, count) => sum + count, 0);
  if (spec.bits.length !== 16 || total !== spec.values.length) throw new Error("malformed Huffman table");
  const codes = new Map<number, [number, number]>();
  let code = 0;
  let index = 0;
  spec.bits.forEach((count, lengthIndex) => {
    for (let n = 0; n < count; n++) codes.set(spec.values[index++] ?? -1, [code++, lengthIndex + 1]);
    code <<= 1;
  });
  return codes;
}

class BitWriter {
  readonly bytes: number[] = [];
  private buffer = 0;
  private count = 0;

  write(code: number, length: number): void {
    for (let bit = length - 1; bit >= 0; bit--) {
      this.buffer = (this.buffer << 1) | ((code >> bit) & 1);
      if (++this.count === 8) this.flushByte();
    }
  }

  /** Pads the last byte with 1-bits. */
  finish(): void {
    while (this.count !== 0) this.write(1, 1);
  }

  private flushByte(): void {
    this.bytes.push(this.buffer);
    if (this.buffer === 0xff) this.bytes.push(0x00); // byte stuffing
    this.buffer = 0;
    this.count = 0;
  }
}

function jpegSegment(marker: number, payload: readonly number[] | Uint8Array): Uint8Array<ArrayBuffer> {
  const length = payload.length + 2;
  if (length > 0xffff) throw new RangeError("JPEG segment too long");
  return concatBytes([new Uint8Array([0xff, marker, length >> 8, length & 0xff]), Uint8Array.from(payload)]);
}

/** Magnitude category (number of bits) of a coefficient. */
function category(value: number): number {
  let magnitude = Math.abs(value);
  let bits = 0;
  while (magnitude > 0) {
    bits++;
    magnitude >>= 1;
  }
  return bits;
}

/** The forward DCT of an 8x8 block of level-shifted samples, quantised, in zigzag order. */
function dctQuantise(block: Float64Array, quant: readonly number[]): number[] {
  const out = new Array<number>(64).fill(0);
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0;
      for (let y = 0; y < 8; y++) {
        for (let x = 0; x < 8; x++) {
          sum +=
            (block[y * 8 + x] ?? 0) *
            Math.cos(((2 * x + 1) * u * Math.PI) / 16) *
            Math.cos(((2 * y + 1) * v * Math.PI) / 16);
        }
      }
      const cu = u === 0 ? Math.SQRT1_2 : 1;
      const cv = v === 0 ? Math.SQRT1_2 : 1;
      out[v * 8 + u] = Math.round((0.25 * cu * cv * sum) / (quant[v * 8 + u] ?? 1));
    }
  }
  return ZIGZAG.map((natural) => out[natural] ?? 0);
}

function encodeBlock(
  writer: BitWriter,
  coefficients: number[],
  previousDc: number,
  dc: Map<number, [number, number]>,
  ac: Map<number, [number, number]>,
): number {
  const emit = (table: Map<number, [number, number]>, symbol: number) => {
    const entry = table.get(symbol);
    if (!entry) throw new Error(`no Huffman code for symbol ${symbol}`);
    writer.write(entry[0], entry[1]);
  };
  const emitValue = (value: number, bits: number) => {
    if (bits > 0) writer.write(value < 0 ? value + (1 << bits) - 1 : value, bits);
  };

  const dcValue = coefficients[0] ?? 0;
  const difference = dcValue - previousDc;
  emit(dc, category(difference));
  emitValue(difference, category(difference));

  let run = 0;
  for (let k = 1; k < 64; k++) {
    const value = coefficients[k] ?? 0;
    if (value === 0) {
      run++;
      continue;
    }
    while (run > 15) {
      emit(ac, 0xf0); // ZRL: sixteen zeros
      run -= 16;
    }
    emit(ac, (run << 4) | category(value));
    emitValue(value, category(value));
    run = 0;
  }
  if (run > 0) emit(ac, 0x00); // EOB
  return dcValue;
}

/** JPEG fill bytes (0xFF) may precede any marker; used for 1–3 bytes of padding. */
function jpegPadding(count: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let remaining = count;
  while (remaining >= 4) {
    // A COM segment is 4 to 65537 bytes; never leave 1–3 bytes behind unless that is all there is.
    let length = Math.min(remaining, 0xffff + 2);
    if (remaining - length > 0 && remaining - length < 4) length -= 4;
    parts.push(jpegSegment(0xfe, new Uint8Array(length - 4).fill(0x20)));
    remaining -= length;
  }
  if (remaining > 0) parts.push(new Uint8Array(remaining).fill(0xff));
  return parts;
}

/** A baseline JFIF JPEG of a colour gradient. `size` pads it to an exact byte size with COM segments. */
export function makeJpeg(width = 16, height = 16, options: { size?: number } = {}): Uint8Array<ArrayBuffer> {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width > 0xffff) {
    throw new RangeError("JPEG dimensions must be positive integers");
  }
  const head = [
    new Uint8Array([0xff, 0xd8]), // SOI
    jpegSegment(0xe0, [...latin1("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0]), // APP0: JFIF 1.01, 1:1 aspect
  ];
  const tables = [
    jpegSegment(0xdb, [
      0x00,
      ...ZIGZAG.map((natural) => LUMA_QUANT[natural] ?? 1),
      0x01,
      ...ZIGZAG.map((natural) => CHROMA_QUANT[natural] ?? 1),
    ]),
    jpegSegment(0xc0, [
      8,
      height >> 8,
      height & 0xff,
      width >> 8,
      width & 0xff,
      3,
      1,
      0x11,
      0,
      2,
      0x11,
      1,
      3,
      0x11,
      1,
    ]),
    jpegSegment(0xc4, [
      ...[0x00, ...DC_LUMA.bits, ...DC_LUMA.values],
      ...[0x10, ...AC_LUMA.bits, ...AC_LUMA.values],
      ...[0x01, ...DC_CHROMA.bits, ...DC_CHROMA.values],
      ...[0x11, ...AC_CHROMA.bits, ...AC_CHROMA.values],
    ]),
    jpegSegment(0xda, [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]),
  ];

  const codes = {
    dcLuma: huffmanCodes(DC_LUMA),
    acLuma: huffmanCodes(AC_LUMA),
    dcChroma: huffmanCodes(DC_CHROMA),
    acChroma: huffmanCodes(AC_CHROMA),
  };
  const writer = new BitWriter();
  const previousDc = [0, 0, 0];
  for (let blockY = 0; blockY < height; blockY += 8) {
    for (let blockX = 0; blockX < width; blockX += 8) {
      const planes = [new Float64Array(64), new Float64Array(64), new Float64Array(64)];
      for (let y = 0; y < 8; y++) {
        for (let x = 0; x < 8; x++) {
          // Edge pixels are repeated to fill partial blocks.
          const [r, g, b] = gradient(
            Math.min(blockX + x, width - 1),
            Math.min(blockY + y, height - 1),
            width,
            height,
          );
          const index = y * 8 + x;
          planes[0]![index] = 0.299 * r + 0.587 * g + 0.114 * b - 128;
          planes[1]![index] = -0.168736 * r - 0.331264 * g + 0.5 * b;
          planes[2]![index] = 0.5 * r - 0.418688 * g - 0.081312 * b;
        }
      }
      planes.forEach((plane, component) => {
        const luma = component === 0;
        previousDc[component] = encodeBlock(
          writer,
          dctQuantise(plane, luma ? LUMA_QUANT : CHROMA_QUANT),
          previousDc[component] ?? 0,
          luma ? codes.dcLuma : codes.dcChroma,
          luma ? codes.acLuma : codes.acChroma,
        );
      });
    }
  }
  writer.finish();
  const scan = Uint8Array.from(writer.bytes);
  const eoi = new Uint8Array([0xff, 0xd9]);

  const unpadded = concatBytes([...head, ...tables, scan, eoi]);
  if (options.size === undefined || options.size === unpadded.byteLength) return unpadded;
  const missing = options.size - unpadded.byteLength;
  if (missing < 0) throw new RangeError(`cannot shrink a ${width}x${height} JPEG to ${options.size} bytes`);
  return concatBytes([...head, ...jpegPadding(missing), ...tables, scan, eoi]);
}

// ---------------------------------------------------------------------------------------------------------
// ZIP and Office Open XML packages

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const RELATIONSHIPS_NS = "http://schemas.openxmlformats.org/package/2006/relationships";
const OFFICE_DOCUMENT_REL =
  "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument";

function contentTypesXml(overrides: Record<string, string>): string {
  return (
    XML_DECLARATION +
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    Object.entries(overrides)
      .map(([part, type]) => `<Override PartName="${part}" ContentType="${type}"/>`)
      .join("") +
    "</Types>"
  );
}

function relationshipsXml(relationships: { id: string; type: string; target: string }[]): string {
  return (
    XML_DECLARATION +
    `<Relationships xmlns="${RELATIONSHIPS_NS}">` +
    relationships
      .map(({ id, type, target }) => `<Relationship Id="${id}" Type="${type}" Target="${target}"/>`)
      .join("") +
    "</Relationships>"
  );
}

function zip(
  entries: [name: string, content: string | Uint8Array, stored?: boolean][],
): Uint8Array<ArrayBuffer> {
  const files: Zippable = {};
  for (const [name, content, stored] of entries) {
    const bytes = typeof content === "string" ? utf8.encode(content) : content;
    files[name] = stored ? [bytes, { level: 0 }] : bytes;
  }
  return new Uint8Array(zipSync(files, { level: 6, mtime: ZIP_MTIME }));
}

const WORD_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";
const WORD_MACRO_MAIN = "application/vnd.ms-word.document.macroEnabled.main+xml";
const WORD_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

export interface DocxOptions {
  /** Paragraph text. */
  text?: string;
  /** Put `[Content_Types].xml` last, as LibreOffice does (Word puts it first). */
  contentTypesLast?: boolean;
  /** Exact size of the package: `word/document.xml` is then stored uncompressed with trailing whitespace. */
  size?: number;
  /** The main part's content type; the default is a plain Word document. */
  mainContentType?: string;
}

/**
 * A Word document package (OOXML, WordprocessingML): `[Content_Types].xml`, `_rels/.rels`,
 * `word/document.xml`, `word/_rels/document.xml.rels`, `docProps/core.xml`.
 */
export function makeDocx(options: DocxOptions = {}): Uint8Array<ArrayBuffer> {
  const build = (padding: number) => buildDocx(options, padding);
  if (options.size === undefined) return build(-1);
  const base = build(0);
  const missing = options.size - base.byteLength;
  if (missing < 0) throw new RangeError(`cannot build a DOCX of only ${options.size} bytes`);
  const docx = build(missing);
  if (docx.byteLength !== options.size) throw new Error("DOCX padding is not linear (ZIP64?)");
  return docx;
}

/** @param padding bytes of whitespace after the root element, stored uncompressed; -1 for a compressed part. */
function buildDocx(options: DocxOptions, padding: number): Uint8Array<ArrayBuffer> {
  const text = (options.text ?? "Project brief: a new website for the studio.")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;");
  const document =
    XML_DECLARATION +
    `<w:document xmlns:w="${WORD_NS}"><w:body>` +
    `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>` +
    '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>' +
    "</w:body></w:document>" +
    "\n".repeat(Math.max(0, padding));

  const contentTypes: [string, string] = [
    "[Content_Types].xml",
    contentTypesXml({
      "/word/document.xml": options.mainContentType ?? WORD_MAIN,
      "/docProps/core.xml": "application/vnd.openxmlformats-package.core-properties+xml",
    }),
  ];
  const parts: [string, string, boolean?][] = [
    [
      "_rels/.rels",
      relationshipsXml([
        { id: "rId1", type: OFFICE_DOCUMENT_REL, target: "word/document.xml" },
        {
          id: "rId2",
          type: "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties",
          target: "docProps/core.xml",
        },
      ]),
    ],
    ["word/document.xml", document, padding >= 0],
    ["word/_rels/document.xml.rels", relationshipsXml([])],
    [
      "docProps/core.xml",
      XML_DECLARATION +
        '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
        "<dc:title>Project brief</dc:title></cp:coreProperties>",
    ],
  ];
  return zip(options.contentTypesLast ? [...parts, contentTypes] : [contentTypes, ...parts]);
}

/** A macro-enabled Word package (`.docm` content type; the macro part itself is left out). */
export function makeDocm(): Uint8Array<ArrayBuffer> {
  return makeDocx({ mainContentType: WORD_MACRO_MAIN });
}

/** A spreadsheet package (OOXML, SpreadsheetML) with one sheet and one cell. */
export function makeXlsx(): Uint8Array<ArrayBuffer> {
  const main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
  return zip([
    [
      "[Content_Types].xml",
      contentTypesXml({
        "/xl/workbook.xml": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
        "/xl/worksheets/sheet1.xml":
          "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml",
      }),
    ],
    ["_rels/.rels", relationshipsXml([{ id: "rId1", type: OFFICE_DOCUMENT_REL, target: "xl/workbook.xml" }])],
    [
      "xl/workbook.xml",
      XML_DECLARATION +
        `<workbook xmlns="${main}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
        '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ],
    [
      "xl/_rels/workbook.xml.rels",
      relationshipsXml([
        {
          id: "rId1",
          type: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet",
          target: "worksheets/sheet1.xml",
        },
      ]),
    ],
    [
      "xl/worksheets/sheet1.xml",
      XML_DECLARATION +
        `<worksheet xmlns="${main}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Budget</t></is></c></row></sheetData></worksheet>`,
    ],
  ]);
}

/** A plain ZIP archive (by default one `notes.txt`; no OOXML content types). */
export function makeZip(
  entries: Record<string, string> = { "notes.txt": "Just a text file in a zip.\n" },
): Uint8Array<ArrayBuffer> {
  return zip(Object.entries(entries));
}

// ---------------------------------------------------------------------------------------------------------
// Other refused formats

/** A 1x1 GIF89a (global colour table, one image, LZW data, trailer). */
export function makeGif(): Uint8Array<ArrayBuffer> {
  return latin1(
    "GIF89a\x01\x00\x01\x00\x80\x00\x00" + // screen 1x1, 2-entry global colour table
      "\x00\x00\x00\xff\xff\xff" + // black, white
      ",\x00\x00\x00\x00\x01\x00\x01\x00\x00" + // image descriptor 1x1 at 0,0
      "\x02\x02\x44\x01\x00" + // LZW minimum code size 2, one 2-byte sub-block, terminator
      ";",
  );
}

/** A Windows PE executable header: DOS "MZ" header pointing at "PE\0\0", COFF header, PE32+ optional header. */
export function makeExe(): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(0x40 + 4 + 20 + 240);
  const view = new DataView(bytes.buffer);
  bytes.set(latin1("MZ"), 0);
  view.setUint16(0x02, 0x90, true); // bytes on last page
  view.setUint16(0x04, 3, true); // pages
  view.setUint32(0x3c, 0x40, true); // e_lfanew
  bytes.set(latin1("PE\0\0"), 0x40);
  view.setUint16(0x44, 0x8664, true); // machine: x86-64
  view.setUint16(0x46, 0, true); // number of sections
  view.setUint16(0x54, 240, true); // size of optional header
  view.setUint16(0x56, 0x0022, true); // executable, large-address aware
  view.setUint16(0x58, 0x020b, true); // optional header magic: PE32+
  return bytes;
}

/** An ELF64 little-endian x86-64 executable header. */
export function makeElf(): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(64);
  const view = new DataView(bytes.buffer);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0); // \x7fELF, 64-bit, little-endian, version 1, System V
  view.setUint16(16, 2, true); // e_type: executable
  view.setUint16(18, 0x3e, true); // e_machine: x86-64
  view.setUint32(20, 1, true); // e_version
  view.setBigUint64(24, 0x401000n, true); // e_entry
  view.setUint16(52, 64, true); // e_ehsize
  view.setUint16(54, 56, true); // e_phentsize
  view.setUint16(58, 64, true); // e_shentsize
  return bytes;
}

// ---------------------------------------------------------------------------------------------------------
// Text

/** UTF-8 text, optionally with a byte order mark. */
export function makeText(text: string, options: { bom?: boolean } = {}): Uint8Array<ArrayBuffer> {
  const body = utf8.encode(text);
  return options.bom ? concatBytes([new Uint8Array([0xef, 0xbb, 0xbf]), body]) : body;
}

/** Otherwise valid UTF-8 text with a NUL byte in the middle. */
export function makeTextWithNul(): Uint8Array<ArrayBuffer> {
  return makeText("Hello\u0000world\n");
}

/** "Café au lait" encoded as Latin-1: the lone 0xE9 byte is not valid UTF-8. */
export function makeInvalidUtf8(): Uint8Array<ArrayBuffer> {
  return latin1("Caf\u00e9 au lait\n");
}

/** UTF-16 text (little-endian by default), with a BOM unless told otherwise. */
export function makeUtf16Text(
  text: string,
  options: { bom?: boolean; endianness?: "le" | "be" } = {},
): Uint8Array<ArrayBuffer> {
  const littleEndian = (options.endianness ?? "le") === "le";
  const units = new Uint8Array(text.length * 2);
  const view = new DataView(units.buffer);
  for (let index = 0; index < text.length; index++)
    view.setUint16(index * 2, text.charCodeAt(index), littleEndian);
  if (options.bom === false) return units;
  return concatBytes([new Uint8Array(littleEndian ? [0xff, 0xfe] : [0xfe, 0xff]), units]);
}

const TEXT_HEAD = "Sized test file — café, 日本語, naïve.\n";
const TEXT_LINE = "The quick brown fox jumps over the lazy dog, 0123456789 times.\n";

function makeSizedText(size: number): Uint8Array<ArrayBuffer> {
  const head = utf8.encode(TEXT_HEAD);
  if (size < head.byteLength) return utf8.encode("x".repeat(size));
  const out = new Uint8Array(size);
  out.set(head);
  const line = utf8.encode(TEXT_LINE);
  let offset = head.byteLength;
  while (offset + line.byteLength <= size) {
    out.set(line, offset);
    offset += line.byteLength;
  }
  out.fill(0x20, offset); // spaces for the remainder
  return out;
}

// ---------------------------------------------------------------------------------------------------------

export type SizedKind = "pdf" | "docx" | "png" | "jpeg" | "text";

/** A valid file of `kind` of exactly `size` bytes (throws if the format's minimum is larger). */
export function makeFileOfSize(kind: SizedKind, size: number): Uint8Array<ArrayBuffer> {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError("size must be a non-negative integer");
  let bytes: Uint8Array<ArrayBuffer>;
  switch (kind) {
    case "pdf":
      bytes = makePdf(undefined, { size });
      break;
    case "docx":
      bytes = makeDocx({ size });
      break;
    case "png":
      bytes = makePng(4, 3, { size });
      break;
    case "jpeg":
      bytes = makeJpeg(16, 16, { size });
      break;
    case "text":
      bytes = makeSizedText(size);
      break;
  }
  if (bytes.byteLength !== size) throw new Error(`built a ${kind} of ${bytes.byteLength} bytes, not ${size}`);
  return bytes;
}
