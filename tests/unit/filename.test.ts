import { describe, expect, it } from "vitest";
import { FALLBACK_FILE_NAME, MAX_FILE_NAME_CODE_POINTS, cleanFileName } from "@/lib/attachments";

const codePoints = (value: string) => Array.from(value).length;

describe("cleanFileName", () => {
  it.each([
    // plain names are kept
    ["brief.pdf", "brief.pdf"],
    ["Project Brief (final) v2.docx", "Project Brief (final) v2.docx"],
    ["archive.tar.gz", "archive.tar.gz"],
    // directory parts, Unix and Windows
    ["../../etc/passwd", "passwd"],
    ["C:\\Users\\x\\a.pdf", "a.pdf"],
    ["/var/tmp/report.docx", "report.docx"],
    ["\\\\server\\share\\plan.png", "plan.png"],
    ["folder/sub\\mixed/name.txt", "name.txt"],
    ["..\\..\\windows\\win.ini", "win.ini"],
    ["dir/", FALLBACK_FILE_NAME],
    ["..", FALLBACK_FILE_NAME],
    // control characters: C0, DEL, C1
    ["a\u0000b.pdf", "ab.pdf"],
    ["line\r\nbreak.txt", "linebreak.txt"],
    ["tab\there.txt", "tabhere.txt"],
    ["bell\u0007.txt", "bell.txt"],
    ["escape\u001b[31m.txt", "escape[31m.txt"],
    ["del\u007f.txt", "del.txt"],
    ["c1\u0080\u0085\u009b\u009f.txt", "c1.txt"],
    // bidi controls (the "cod.exe shown as exe.doc" trick)
    ["invoice\u202efdp.exe", "invoicefdp.exe"],
    ["\u2066x\u2069.png", "x.png"],
    ["a\u200eb\u200f\u061cc.md", "abc.md"],
    // spaces and dots at the ends
    ["  report.pdf  ", "report.pdf"],
    ["...hidden.", "hidden"],
    ["report.pdf.", "report.pdf"],
    ["\u00a0\u3000name.txt\u3000", "name.txt"],
    [" . . ", FALLBACK_FILE_NAME],
    ["inner  spaces . ok.txt", "inner  spaces . ok.txt"],
    // nothing left
    ["", FALLBACK_FILE_NAME],
    ["\u0000\u0001\u001f", FALLBACK_FILE_NAME],
    ["\u202e\u202e", FALLBACK_FILE_NAME],
    ["/", FALLBACK_FILE_NAME],
    // Unicode kept (and NFC-normalised)
    ["résumé.pdf", "résumé.pdf"],
    ["re\u0301sume\u0301.pdf", "résumé.pdf"],
    ["日本語の資料.docx", "日本語の資料.docx"],
    ["Ελληνικά.txt", "Ελληνικά.txt"],
    ["🎨 moodboard.png", "🎨 moodboard.png"],
    ["a\ud800b.txt", "a\ufffdb.txt"],
    ["a\udc00b.txt", "a\ufffdb.txt"],
  ])("%j -> %j", (input, expected) => {
    expect(cleanFileName(input)).toBe(expected);
  });

  it.each(["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"])(
    "removes bidi control U+%s",
    (control) => {
      expect(cleanFileName(`a${control}b.txt`)).toBe("ab.txt");
    },
  );

  it.each(
    [
      ...Array.from({ length: 0x20 }, (_, code) => code),
      0x7f,
      ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
    ].map((code) => [code.toString(16).padStart(4, "0"), String.fromCharCode(code)]),
  )("removes control character U+%s", (_hex, control) => {
    expect(cleanFileName(`a${control}b.txt`)).toBe("ab.txt");
  });
});

describe("cleanFileName: length cap", () => {
  it("keeps a name of exactly 200 code points", () => {
    const name = `${"a".repeat(196)}.pdf`;
    expect(cleanFileName(name)).toBe(name);
  });

  it.each([
    ["ASCII", "a", ".pdf"],
    ["CJK", "日", ".docx"],
    ["astral emoji", "🎨", ".png"],
  ])("shortens a long %s name to 200 code points and keeps the extension", (_label, unit, extension) => {
    const cleaned = cleanFileName(unit.repeat(300) + extension);
    expect(codePoints(cleaned)).toBe(MAX_FILE_NAME_CODE_POINTS);
    expect(cleaned).toBe(unit.repeat(MAX_FILE_NAME_CODE_POINTS - extension.length) + extension);
  });

  it("shortens a long name without an extension", () => {
    expect(cleanFileName("b".repeat(250))).toBe("b".repeat(200));
  });

  it("does not keep an 'extension' that is itself too long", () => {
    const cleaned = cleanFileName(`x.${"y".repeat(300)}`);
    expect(cleaned).toBe(`x.${"y".repeat(198)}`);
  });

  it("does not cut a character from its combining mark", () => {
    const grapheme = "a\u0332"; // a + combining low line: no precomposed form, two code points
    const cleaned = cleanFileName(grapheme.repeat(150) + ".txt");
    expect(cleaned).toBe(grapheme.repeat(98) + ".txt");
  });

  it("trims spaces and dots left at the cut", () => {
    const cleaned = cleanFileName(`${"a".repeat(195)}     ${"b".repeat(50)}.pdf`);
    expect(cleaned).toBe(`${"a".repeat(195)}.pdf`);
  });

  it("counts the length after removing what is stripped", () => {
    const name = `${"\u0000".repeat(100)}dir/${"\u202e".repeat(50)}${"a".repeat(196)}.pdf`;
    expect(cleanFileName(name)).toBe(`${"a".repeat(196)}.pdf`);
  });
});

describe("cleanFileName: invariants", () => {
  const samples = [
    "../../etc/passwd",
    "C:\\Users\\x\\a.pdf",
    "\u0000evil\u202e\r\n.exe",
    "  ..résumé..  ",
    "🎨".repeat(400),
    `${"x".repeat(500)}.docx`,
    "",
  ];

  it.each(samples)("%j: no separators or controls, at most 200 code points, idempotent", (input) => {
    const cleaned = cleanFileName(input);
    expect(cleaned).not.toMatch(/[/\\\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u);
    expect(codePoints(cleaned)).toBeLessThanOrEqual(MAX_FILE_NAME_CODE_POINTS);
    expect(cleaned.length).toBeGreaterThan(0);
    expect(cleaned).not.toMatch(/^[\s.]|[\s.]$/u);
    expect(cleanFileName(cleaned)).toBe(cleaned);
  });
});
