import { isUtf8 } from "node:buffer";
import { describe, expect, it } from "vitest";
import {
  ATTACHMENT_CONTENT_TYPES,
  ATTACHMENT_REFUSAL_MESSAGES,
  type ByteSource,
  inspectAttachment,
  inspectBytes,
  sniffAttachment,
  TextScan,
} from "@/lib/attachments";
import {
  concatBytes,
  makeJpeg,
  makePdf,
  makePng,
  makeText,
  splitAt,
  splitIntoChunks,
} from "../support/files";

/**
 * The edges of the attachment sniffer, each check on its own (the common cases: sniff.test.ts):
 * the printable-text rule behind ASCII signatures, signatures behind a BOM, UTF-8 lead bytes at
 * the ends of their ranges split across chunks, and reading through the byte source.
 */

const TXT = { ext: "txt", contentType: "text/plain" };
const UTF8_BOM = Uint8Array.of(0xef, 0xbb, 0xbf);
const bytes = (...parts: (string | number[])[]) =>
  concatBytes(parts.map((part) => (typeof part === "string" ? makeText(part) : Uint8Array.from(part))));

describe("text that starts like a binary signature must be printable", () => {
  const signatures = ["GIF89a", "BM", "%!PS-Adobe-3.0", '<?xml version="1.0"?>'];
  const refused = [0x01, 0x08, 0x0b, 0x0e, 0x1b, 0x1f, 0x7f];
  const allowed = [0x09, 0x0a, 0x0c, 0x0d];

  it.each(signatures)(
    "%j followed by each control byte but tab, LF, FF and CR is refused",
    async (signature) => {
      for (const control of refused) {
        const file = bytes(signature, " text ", [control], " more text\n");
        expect(isUtf8(file)).toBe(true);
        expect(await inspectAttachment([file], "notes.txt"), `byte ${control}`).toEqual({
          ok: false,
          reason: "unsupported",
          message: ATTACHMENT_REFUSAL_MESSAGES.unsupported,
        });
      }
    },
  );

  it.each(signatures)("%j followed by tab, LF, FF, CR and space is text", async (signature) => {
    for (const control of [...allowed, 0x20, 0x7e]) {
      const file = bytes(signature, " text ", [control], " more text\n");
      expect(await sniffAttachment([file], "notes.txt"), `byte ${control}`).toEqual(TXT);
    }
  });

  it("a control byte in a later chunk counts too, and so does one in the first", async () => {
    expect(await sniffAttachment([bytes("GIF89a text\n"), bytes("more", [0x01], "\n")], "a.txt")).toBeNull();
    expect(await sniffAttachment([bytes("BM", [0x1b], "\n"), bytes("more text\n")], "a.txt")).toBeNull();
    const scan = new TextScan();
    scan.update(bytes("a", [0x01]));
    scan.update(bytes("b"));
    expect(scan.finish()).toEqual({ text: true, printable: false });
  });

  it("text without a signature may hold control bytes (an ANSI colour, a form feed)", async () => {
    expect(await sniffAttachment([bytes("log: ", [0x1b], "[31mred", [0x1b], "[0m\n")], "log.txt")).toEqual(
      TXT,
    );
    expect(await sniffAttachment([bytes("a", [0x7f], "b")], "a.txt")).toEqual(TXT);
  });
});

describe("signatures must sit at byte 0", () => {
  it.each([
    ["a JPEG", makeJpeg()],
    ["a PNG", makePng()],
    ["a PDF", makePdf()],
  ])("%s behind a UTF-8 BOM is refused, in one chunk or split after the BOM", async (_label, file) => {
    const withBom = concatBytes([UTF8_BOM, file]);
    expect(await sniffAttachment([withBom], "file")).toBeNull();
    expect(await sniffAttachment(splitAt(withBom, 3), "file")).toBeNull();
  });

  it("a file that is exactly a signature is that format", async () => {
    expect(await sniffAttachment([Uint8Array.of(0xff, 0xd8, 0xff)], "a.jpg")).toEqual({
      ext: "jpg",
      contentType: "image/jpeg",
    });
  });

  it("a file of a signature's first bytes only is not that format", async () => {
    expect(await sniffAttachment([Uint8Array.of(0xff, 0xd8)], "a.jpg")).toBeNull();
    expect(await sniffAttachment([bytes("%PDF")], "a.pdf")).toEqual(TXT);
  });
});

describe("UTF-8 lead bytes at the ends of their ranges, split after the lead byte", () => {
  const characters: [string, number[]][] = [
    ["U+0080 (lead C2)", [0xc2, 0x80]],
    ["U+00A0 (lead C2)", [0xc2, 0xa0]],
    ["U+07FF (lead DF)", [0xdf, 0xbf]],
    ["U+0800 (lead E0)", [0xe0, 0xa0, 0x80]],
    ["U+FFFD (lead EF)", [0xef, 0xbf, 0xbd]],
    ["U+10000 (lead F0)", [0xf0, 0x90, 0x80, 0x80]],
    ["U+10FFFF (lead F4)", [0xf4, 0x8f, 0xbf, 0xbf]],
  ];

  function verdict(chunks: Uint8Array[]) {
    const scan = new TextScan();
    for (const chunk of chunks) scan.update(chunk);
    return scan.finish().text;
  }

  it.each(characters)("%s is text however it is cut", (_label, character) => {
    const file = bytes("ab", character, "cd");
    for (let at = 1; at < file.byteLength; at++) {
      expect(verdict(splitAt(file, at)), `cut at ${at}`).toBe(true);
      for (let second = at + 1; second < file.byteLength; second++) {
        for (let third = second + 1; third < file.byteLength; third++) {
          expect(verdict(splitAt(file, at, second, third)), `cut at ${at}, ${second}, ${third}`).toBe(true);
        }
      }
    }
  });

  it.each([
    ["C1 (never a lead byte)", [0xc1, 0xbf]],
    ["F5 (past U+10FFFF)", [0xf5, 0x80, 0x80, 0x80]],
    ["F4 beyond U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
    ["E0 overlong", [0xe0, 0x80, 0x80]],
    ["F0 followed by ASCII in the third chunk", [0xf0, 0x9f, 0x41, 0x42, 0x43]],
    ["E2 82 then ASCII", [0xe2, 0x82, 0x41]],
  ])("%s is not text, in one chunk or cut into up to four", (_label, sequence) => {
    const file = bytes("ab", sequence, "cd");
    expect(verdict([file])).toBe(false);
    for (let at = 1; at < file.byteLength; at++) {
      for (let second = at + 1; second < file.byteLength; second++) {
        for (let third = second + 1; third < file.byteLength; third++) {
          expect(verdict(splitAt(file, at, second, third)), `cut at ${at}, ${second}, ${third}`).toBe(false);
        }
      }
    }
  });

  it("a file ending in a lead byte and some of its continuation is not text", () => {
    for (const tail of [[0xc2], [0xe0, 0xa0], [0xf4, 0x8f, 0xbf], [0xf0]]) {
      expect(verdict([bytes("ab", tail)])).toBe(false);
      expect(verdict(splitIntoChunks(bytes("ab", tail), 1))).toBe(false);
    }
  });

  it("a character found invalid across chunks stays invalid, whatever completes it later", () => {
    expect(verdict([Uint8Array.of(0xe2), bytes("AB"), Uint8Array.of(0x82, 0xac)])).toBe(false);
  });

  it("a NUL after a split character is seen", () => {
    expect(verdict([bytes("a", [0xc3]), bytes([0xa9], "b", [0x00])])).toBe(false);
  });
});

describe("inspectBytes over a byte source", () => {
  /** A source that hands out at most `step` bytes per read, as a file read in pieces does. */
  function source(file: Uint8Array, step: number): ByteSource & { reads: number } {
    return {
      size: file.byteLength,
      reads: 0,
      async read(target, position) {
        this.reads += 1;
        const count = Math.max(0, Math.min(step, target.byteLength, file.byteLength - position));
        target.set(file.subarray(position, position + count));
        return count;
      },
    };
  }

  const scanned = (file: Uint8Array) => {
    const scan = new TextScan();
    scan.update(file);
    return scan.finish();
  };

  it.each([
    ["a PNG", makePng(), "png"],
    ["a JPEG", makeJpeg(), "jpg"],
    ["a PDF", makePdf(), "pdf"],
  ] as const)("detects %s read a few bytes at a time", async (_label, file, ext) => {
    for (const step of [1, 3, 5]) {
      expect(await inspectBytes(source(file, step), scanned(file), "file")).toEqual({
        ok: true,
        type: { ext, contentType: ATTACHMENT_CONTENT_TYPES[ext] },
      });
    }
  });

  it("an empty source is empty, whatever the scan said", async () => {
    expect(
      await inspectBytes(source(new Uint8Array(0), 1), { text: true, printable: true }, "a.txt"),
    ).toEqual({
      ok: false,
      reason: "empty",
      message: ATTACHMENT_REFUSAL_MESSAGES.empty,
    });
  });
});
