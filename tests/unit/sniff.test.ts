import { isUtf8 } from "node:buffer";
import { describe, expect, it } from "vitest";
import { ATTACHMENT_REFUSAL_MESSAGES, inspectAttachment, sniffAttachment, TextScan } from "@/lib/attachments";
import {
  TEN_MIB,
  concatBytes,
  makeDocm,
  makeDocx,
  makeElf,
  makeExe,
  makeFileOfSize,
  makeGif,
  makeInvalidUtf8,
  makeJpeg,
  makePdf,
  makePng,
  makeText,
  makeTextWithNul,
  makeUtf16Text,
  makeXlsx,
  makeZip,
  splitAt,
  splitIntoChunks,
  type SizedKind,
} from "../support/files";

const PDF = { ext: "pdf", contentType: "application/pdf" };
const DOCX = {
  ext: "docx",
  contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};
const PNG = { ext: "png", contentType: "image/png" };
const JPG = { ext: "jpg", contentType: "image/jpeg" };
const TXT = { ext: "txt", contentType: "text/plain" };
const MD = { ext: "md", contentType: "text/markdown" };

const UTF8_BOM = new Uint8Array([0xef, 0xbb, 0xbf]);

describe("sniffAttachment: allowed types, decided by the bytes", () => {
  it.each([
    ["a PDF", "brief.pdf", makePdf(), PDF],
    ["a DOCX (Word order: [Content_Types].xml first)", "brief.docx", makeDocx(), DOCX],
    [
      "a DOCX (LibreOffice order: [Content_Types].xml last)",
      "b.docx",
      makeDocx({ contentTypesLast: true }),
      DOCX,
    ],
    ["a PNG", "moodboard.png", makePng(), PNG],
    ["a JPEG", "photo.jpg", makeJpeg(), JPG],
    ["a larger JPEG", "photo.jpeg", makeJpeg(64, 48), JPG],
    ["plain text", "notes.txt", makeText("Hello, we would like a new site.\n"), TXT],
  ])("%s named %j", async (_label, name, bytes, expected) => {
    expect(await sniffAttachment([bytes], name)).toEqual(expected);
  });

  it.each([
    ["a PNG", "brief.pdf", makePng(), PNG],
    ["a PDF", "x.png", makePdf(), PDF],
    ["a JPEG", "notes.txt", makeJpeg(), JPG],
    ["a DOCX", "report.pdf", makeDocx(), DOCX],
    ["a PDF", "readme.md", makePdf(), PDF],
    ["a PNG", "", makePng(), PNG],
    ["text", "brief.pdf", makeText("not really a PDF\n"), TXT],
    ["text", "photo.jpg", makeText("not really an image\n"), TXT],
  ])("%s with a misleading name (%j) is still what its bytes say", async (_label, name, bytes, expected) => {
    expect(await sniffAttachment([bytes], name)).toEqual(expected);
  });
});

describe("sniffAttachment: printable text that starts like a binary signature is text", () => {
  it.each([
    ["'MZ' (file-type: exe)", "notes.txt", "MZ is where we start.\n", TXT],
    ["'BM' (file-type: bmp)", "notes.txt", "BMW brand guidelines\n", TXT],
    ["'GIF' (file-type: gif)", "notes.md", "GIFs for the homepage\n", MD],
    [
      "'<?xml' (file-type: xml)",
      "brief.txt",
      '<?xml version="1.0"?>\n<brief>\tTabs and\r\nlines</brief>\n',
      TXT,
    ],
  ])("text starting with %s", async (_label, name, content, expected) => {
    expect(await sniffAttachment([makeText(content)], name)).toEqual(expected);
  });
});

describe("sniffAttachment: text, and Markdown by name", () => {
  const text = makeText("# Brief\n\nA site for the studio.\n");

  it.each([
    ["notes.md", MD],
    ["README.MD", MD],
    ["Notes.Md", MD],
    ["notes.txt.md", MD],
    ["C:\\Users\\x\\brief.md", MD],
    ["notes.md ", MD], // trailing space is cleaned off the name
    ["notes.txt", TXT],
    ["notes.md.txt", TXT],
    ["notes.markdown", TXT],
    ["md", TXT],
    ["notes", TXT],
    ["", TXT],
  ])("text named %j is %o", async (name, expected) => {
    expect(await sniffAttachment([text], name)).toEqual(expected);
  });

  it.each([
    ["with a UTF-8 BOM", makeText("Hello\n", { bom: true })],
    ["that is only a UTF-8 BOM", UTF8_BOM],
    ["in several scripts and emoji", makeText("Café crème — 日本語のブリーフ — Ελληνικά — 🎨🖌️\n")],
    ["with CRLF line ends and tabs", makeText("a\tb\r\nc\r\n")],
    ["of one byte", makeText("x")],
    ["that is only whitespace", makeText(" \n")],
    ["starting like a script (no file-type signature)", makeText("#!/bin/sh\necho hi\n")],
    ["that is HTML", makeText("<!DOCTYPE html><p>hi</p>\n")],
  ])("accepts text %s", async (_label, bytes) => {
    expect(await sniffAttachment([bytes], "notes.txt")).toEqual(TXT);
  });
});

describe("sniffAttachment: chunked input", () => {
  const cafe = makeText("café"); // é is C3 A9
  const emoji = makeText("ok 🎨 ok"); // 🎨 is F0 9F 8E A8, at offset 3

  it("accepts text split between the two bytes of é", async () => {
    const chunks = splitAt(cafe, 4);
    expect(chunks.map((chunk) => chunk.byteLength)).toEqual([4, 1]);
    expect(chunks[0]?.at(-1)).toBe(0xc3);
    expect(await sniffAttachment(chunks, "a.txt")).toEqual(TXT);
  });

  it.each([4, 5, 6])("accepts text split inside a 4-byte character (at byte %i)", async (offset) => {
    expect(await sniffAttachment(splitAt(emoji, offset), "a.txt")).toEqual(TXT);
  });

  it("accepts text delivered one byte per chunk", async () => {
    expect(await sniffAttachment(splitIntoChunks(emoji, 1), "a.md")).toEqual(MD);
  });

  it("refuses text that ends in the middle of a character, even across chunks", async () => {
    expect(await sniffAttachment(splitAt(cafe.subarray(0, 4), 2), "a.txt")).toBeNull();
  });

  it("refuses a NUL byte that only appears in a later chunk", async () => {
    const chunks = [makeText("a".repeat(1000)), makeText("b\u0000c")];
    expect(await sniffAttachment(chunks, "a.txt")).toBeNull();
  });

  it("refuses invalid UTF-8 that only appears in a later chunk", async () => {
    expect(await sniffAttachment([makeText("fine so far\n"), makeInvalidUtf8()], "a.txt")).toBeNull();
  });

  it.each([
    ["PDF", makePdf(), PDF],
    ["DOCX", makeDocx(), DOCX],
    ["DOCX, [Content_Types].xml last", makeDocx({ contentTypesLast: true }), DOCX],
    ["PNG", makePng(), PNG],
    ["JPEG", makeJpeg(), JPG],
    ["XLSX", makeXlsx(), null],
    ["ZIP", makeZip(), null],
  ])("detects a %s the same whatever the chunking", async (_label, bytes, expected) => {
    for (const size of [1, 3, 7, 64, 4096]) {
      expect(await sniffAttachment(splitIntoChunks(bytes, size), "file"), `chunks of ${size}`).toEqual(
        expected,
      );
    }
    const withEmptyChunks = [new Uint8Array(0), ...splitAt(bytes, 2, 2, 9), new Uint8Array(0)];
    expect(await sniffAttachment(withEmptyChunks, "file")).toEqual(expected);
  });

  it("does not modify the chunks", async () => {
    for (const bytes of [makeDocx({ contentTypesLast: true }), makePng(), makeText("héllo")]) {
      const chunks = splitIntoChunks(bytes, 5);
      const before = concatBytes(chunks);
      await sniffAttachment(chunks, "file");
      expect(concatBytes(chunks)).toEqual(before);
    }
  });
});

describe("sniffAttachment: refused files", () => {
  it.each([
    ["a plain ZIP with a .txt inside", "brief.docx", makeZip()],
    [
      "a ZIP with Word-looking paths but no [Content_Types].xml",
      "a.docx",
      makeZip({ "word/document.xml": "<w/>" }),
    ],
    ["an XLSX spreadsheet", "budget.docx", makeXlsx()],
    ["a macro-enabled Word document (DOCM)", "brief.docx", makeDocm()],
    ["a GIF", "image.png", makeGif()],
    ["a Windows executable (MZ/PE)", "brief.pdf", makeExe()],
    ["an ELF executable", "notes.txt", makeElf()],
    ["text with a NUL byte", "notes.txt", makeTextWithNul()],
    ["Latin-1 text (invalid UTF-8)", "notes.txt", makeInvalidUtf8()],
    ["text ending in a truncated UTF-8 sequence", "notes.txt", makeText("café").subarray(0, 4)],
    ["an overlong UTF-8 encoding of '/'", "notes.txt", new Uint8Array([0x61, 0xc0, 0xaf, 0x62])],
    ["a UTF-8-encoded surrogate", "notes.txt", new Uint8Array([0x61, 0xed, 0xa0, 0x80])],
    ["UTF-16LE text with a BOM", "notes.txt", makeUtf16Text("Hello, brief\n")],
    ["UTF-16BE text with a BOM", "notes.txt", makeUtf16Text("Hello, brief\n", { endianness: "be" })],
    ["UTF-16LE text without a BOM", "notes.md", makeUtf16Text("Hello, brief\n", { bom: false })],
    ["a PNG behind a UTF-8 BOM", "a.png", concatBytes([UTF8_BOM, makePng()])],
    ["a PDF behind a UTF-8 BOM", "a.pdf", concatBytes([UTF8_BOM, makePdf()])],
    ["a DOCX behind a UTF-8 BOM", "a.docx", concatBytes([UTF8_BOM, makeDocx()])],
    // An ASCII signature with a binary byte behind it is the binary format, not text:
    [
      "'BM' followed by binary bytes (a BMP)",
      "notes.txt",
      concatBytes([makeText("BM"), new Uint8Array([0x36, 0x0c, 0x00, 0x00, 0x01])]),
    ],
    [
      "'GIF89a' followed by binary bytes",
      "notes.md",
      concatBytes([makeText("GIF89a"), new Uint8Array([0x01, 0x00, 0x01, 0x00, 0x80])]),
    ],
  ])("refuses %s (named %j)", async (_label, name, bytes) => {
    expect(await sniffAttachment([bytes], name)).toBeNull();
    expect(await inspectAttachment([bytes], name)).toEqual({
      ok: false,
      reason: "unsupported",
      message: ATTACHMENT_REFUSAL_MESSAGES.unsupported,
    });
  });

  it.each([
    ["no chunks", []],
    ["one empty chunk", [new Uint8Array(0)]],
    ["several empty chunks", [new Uint8Array(0), new Uint8Array(0)]],
  ])("refuses an empty file (%s) with its own message", async (_label, chunks: Uint8Array[]) => {
    expect(await sniffAttachment(chunks, "empty.txt")).toBeNull();
    const inspection = await inspectAttachment(chunks, "empty.txt");
    expect(inspection).toEqual({ ok: false, reason: "empty", message: ATTACHMENT_REFUSAL_MESSAGES.empty });
    expect(ATTACHMENT_REFUSAL_MESSAGES.empty).not.toBe(ATTACHMENT_REFUSAL_MESSAGES.unsupported);
  });

  it("detects by signature, it does not validate: a truncated PNG is still a PNG", async () => {
    expect(await sniffAttachment([makePng().subarray(0, 20)], "a.png")).toEqual(PNG);
  });

  it("reports an accepted file as ok", async () => {
    expect(await inspectAttachment([makePng()], "a.png")).toEqual({ ok: true, type: PNG });
  });
});

describe("exactly-sized files (10 MiB), in 64 KiB chunks", () => {
  const expected: Record<SizedKind, object> = { pdf: PDF, docx: DOCX, png: PNG, jpeg: JPG, text: TXT };

  it.each(Object.keys(expected) as SizedKind[])(
    "a %s of exactly 10 MiB and one of 10 MiB + 1 are built and detected",
    async (kind) => {
      for (const size of [TEN_MIB, TEN_MIB + 1]) {
        const bytes = makeFileOfSize(kind, size);
        expect(bytes.byteLength).toBe(size);
        expect(await sniffAttachment(splitIntoChunks(bytes), "file.txt")).toEqual(expected[kind]);
      }
    },
    30_000,
  );

  it("a 3 MiB DOCX whose [Content_Types].xml comes after its ~3 MiB document part is still a DOCX", async () => {
    const bytes = makeDocx({ contentTypesLast: true, size: 3 * 1024 * 1024 });
    expect(await sniffAttachment(splitIntoChunks(bytes), "brief.docx")).toEqual(DOCX);
  });

  it.each([
    ["pdf", 1000],
    ["docx", 3000],
    ["png", 500],
    ["jpeg", 2000],
    ["text", 100],
  ] as const)("makeFileOfSize(%s, %i) is exact", (kind, size) => {
    expect(makeFileOfSize(kind, size).byteLength).toBe(size);
  });
});

describe("TextScan: UTF-8 and control bytes checked chunk by chunk, as an upload arrives", () => {
  const samples: [string, Uint8Array][] = [
    ["ASCII", Buffer.from("plain text\n")],
    ["two-, three- and four-byte characters", Buffer.from("é € 😀 ü\tend")],
    ["a BOM first", Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from("hi ✓")])],
    ["a character cut off at the end", Buffer.from([...Buffer.from("ok €"), 0xf0, 0x9f, 0x98])],
    ["an overlong encoding", Buffer.from([0x61, 0xc0, 0x80, 0x62])],
    ["a surrogate", Buffer.from([0x61, 0xed, 0xa0, 0x80])],
    ["a byte that is never UTF-8", Buffer.from([0x61, 0xf5, 0x80, 0x80, 0x80])],
    ["a lead byte followed by ASCII", Buffer.from([0xe2, 0x82, 0x41, 0x42])],
    ["a stray continuation byte", Buffer.from([0x41, 0x80, 0x42])],
    ["a NUL", Buffer.from([0x41, 0x00, 0x42])],
    ["a control byte in text", Buffer.from("a\u0001b")],
    ["DEL in text", Buffer.from("a\u007fb")],
    ["tab, form feed and CR LF in text", Buffer.from("a\tb\fc\r\n")],
    ["a control byte, then a byte that is never UTF-8", Buffer.from([0x41, 0x01, 0xff])],
    ["a control byte where a character's continuation should be", Buffer.from([0xe2, 0x01, 0x82])],
  ];

  function verdict(chunks: Uint8Array[]) {
    const scan = new TextScan();
    for (const chunk of chunks) scan.update(chunk);
    return scan.finish();
  }

  const isControl = (byte: number) =>
    (byte < 0x20 && ![0x09, 0x0a, 0x0c, 0x0d].includes(byte)) || byte === 0x7f;

  for (const [name, bytes] of samples) {
    it(`${name}: the same verdict however the bytes are split`, () => {
      const text = isUtf8(bytes) && !bytes.includes(0);
      const expected = { text, printable: text && !bytes.some(isControl) };
      expect(verdict([bytes])).toEqual(expected);
      expect(verdict([...bytes].map((byte) => Uint8Array.of(byte)))).toEqual(expected);
      for (let at = 0; at <= bytes.byteLength; at++) {
        for (let second = at; second <= bytes.byteLength; second++) {
          const chunks = [bytes.subarray(0, at), bytes.subarray(at, second), bytes.subarray(second)];
          expect(verdict(chunks), `split at ${at} and ${second}`).toEqual(expected);
        }
      }
    });
  }
});
