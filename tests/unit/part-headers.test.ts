import busboy from "busboy";
import { describe, expect, it } from "vitest";
import { declaredCharset, PartCharsets } from "@/lib/http/part-charsets";
import { splitIntoChunks } from "../support/files";

/**
 * The part-header parser inside PartCharsets, each way it refuses a header block on its own, with
 * busboy itself as the reference: the stage must call a body malformed exactly when busboy reports
 * "Malformed part header", at the 16 KiB cap in every state of the parser too. (The stage as a
 * whole: part-charsets.test.ts.)
 */

const BOUNDARY = "hdrBoundary42";
const DISPOSITION = 'Content-Disposition: form-data; name="field"';

/** A one-part form whose header block is exactly `headers` (lines joined by CRLF). */
function form(headers: string, value = "x"): Buffer {
  return Buffer.from(`--${BOUNDARY}\r\n${headers}\r\n\r\n${value}\r\n--${BOUNDARY}--\r\n`, "latin1");
}

function stage(chunks: readonly Uint8Array[]) {
  const charsets = new PartCharsets(BOUNDARY);
  const output = [...chunks.map((chunk) => charsets.write(chunk)), charsets.end()];
  return { output: Buffer.concat(output), malformed: charsets.malformed };
}

/** The charset busboy hands over with each part it emits from what the stage passed on. */
function charsets(chunks: readonly Uint8Array[]): Promise<(string | null)[]> {
  const parser = busboy({ headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` } });
  const found: (string | null)[] = [];
  parser.on("field", (_name, _value, info) => found.push(declaredCharset(info.encoding)));
  parser.on("file", (_name, stream, info) => {
    found.push(declaredCharset(info.encoding));
    stream.resume();
  });
  return new Promise((resolve, reject) => {
    parser.on("error", reject);
    parser.on("close", () => resolve(found));
    parser.end(stage(chunks).output);
  });
}

/** busboy alone on the body: the error it reports, or `null`. */
function busboyError(body: Buffer): Promise<string | null> {
  const parser = busboy({ headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` } });
  parser.on("field", () => {});
  parser.on("file", (_name, stream) => {
    stream.resume();
    stream.on("error", () => {});
  });
  return new Promise((resolve) => {
    parser.on("error", (error: Error) => resolve(error.message));
    parser.on("close", () => resolve(null));
    parser.end(body);
  });
}

/** The stage's verdict on `body`, whole and in chunks, must be `malformed` and busboy's. */
async function expectVerdict(body: Buffer, malformed: boolean, label: string, chunkSizes = [1, 7]) {
  expect(stage([body]).malformed, `${label}, whole`).toBe(malformed);
  // Said as soon as the header block is read, not only once a delimiter follows it.
  const headerBlock = body.subarray(0, body.indexOf("\r\n\r\n", 2) + 5); // and the first content byte
  const early = new PartCharsets(BOUNDARY);
  early.write(headerBlock);
  expect(early.malformed, `${label}, the header block alone`).toBe(malformed);
  for (const size of chunkSizes) {
    expect(stage(splitIntoChunks(body, size)).malformed, `${label}, in chunks of ${size}`).toBe(malformed);
  }
  expect(await busboyError(body), `${label}: busboy`).toBe(malformed ? "Malformed part header" : null);
}

describe("the part-header parser refuses what busboy refuses", () => {
  it.each([
    ["a line without a colon", `${DISPOSITION}\r\nContent-Type`],
    ["an empty name", `${DISPOSITION}\r\n: text/plain`],
    ["an empty name first", `: x\r\n${DISPOSITION}`],
    ["a space in a name", `${DISPOSITION}\r\nContent Type: text/plain`],
    ["a parenthesis in a name", `${DISPOSITION}\r\nContent(Type): text/plain`],
    ["a name byte above ASCII", `${DISPOSITION}\r\nContent-Typ\u00e9: text/plain`],
    ["a control byte in a value", `${DISPOSITION}\r\nContent-Type: text/\u0001plain`],
    ["DEL in a value", `${DISPOSITION}\r\nContent-Type: text/plain\u007f`],
    ["a bare LF in a value", `${DISPOSITION}\r\nContent-Type: text/plain\nX-A: b`],
    ["a NUL in a value", `${DISPOSITION}\r\nX-A: a\u0000b`],
    ["a CR without LF after a value", `${DISPOSITION}\r\nContent-Type: text/plain\rX-A: b`],
    ["a CR without LF ending the block", `${DISPOSITION}\r\n\rX`],
  ])("%s", async (label, headers) => {
    await expectVerdict(form(headers), true, label);
  });

  it.each([
    ["every token character in a name", `${DISPOSITION}\r\nX!#$%&'*+-.^_\`|~09AZaz: v`],
    ["a tab before a value", `${DISPOSITION}\r\nContent-Type:\ttext/plain`],
    ["spaces and tabs before a value", `${DISPOSITION}\r\nContent-Type: \t \ttext/plain`],
    ["a tab inside a value", `${DISPOSITION}\r\nX-A: a\tb`],
    ["bytes above DEL in a value", `${DISPOSITION}\r\nX-A: caf\u00e9 \u0080\u00ff`],
    ["a value folded with a tab", `${DISPOSITION}\r\nContent-Type: text/plain;\r\n\tcharset=utf-8`],
    ["an empty value", `${DISPOSITION}\r\nX-A:`],
  ])("accepts %s", async (label, headers) => {
    await expectVerdict(form(headers), false, label);
  });

  it("reads a charset after a tab, and one folded with a tab", async () => {
    expect(await charsets([form(`${DISPOSITION}\r\nContent-Type:\ttext/plain; charset=utf-8`)])).toEqual([
      "utf-8",
    ]);
    const folded = form(`${DISPOSITION}\r\nContent-Type: text/plain;\r\n\tcharset=iso-8859-1`);
    expect(await charsets([folded])).toEqual(["iso-8859-1"]);
    expect(await charsets(splitIntoChunks(folded, 1))).toEqual(["iso-8859-1"]);
  });
});

describe("the 16 KiB cap on a header block, in each state of the parser", () => {
  const CAP = 16 * 1024;

  // As `size` grows by one, the cap falls on each byte of the block in turn: the long header's
  // name, the spaces before its value, its value, its CR and LF, the next line's first byte, and
  // the blank line's CR and LF. busboy's verdict flips at one size; the stage's must flip there too.
  it.each<[string, (size: number) => string]>([
    ["a long name", (size) => `${DISPOSITION}\r\n${"N".repeat(size)}: v`],
    ["long spaces before a value", (size) => `${DISPOSITION}\r\nX-A:${" ".repeat(size)}v`],
    ["a long value, the last header", (size) => `${DISPOSITION}\r\nX-A: ${"v".repeat(size)}`],
    [
      "a long value, a short header after it",
      (size) => `${DISPOSITION}\r\nX-A: ${"v".repeat(size)}\r\nX-B: w`,
    ],
    ["a long value folded", (size) => `${DISPOSITION}\r\nX-A: ${"v".repeat(size)}\r\n w`],
  ])("%s", async (label, headers) => {
    // The first size busboy refuses; past it, the byte over the cap moves back through the
    // block's end (the last LF, the blank line's CR, the LF and CR before it, the last line...).
    let first = CAP - DISPOSITION.length - 40;
    while ((await busboyError(form(headers(first)))) === null) first += 1;
    expect(first).toBeLessThan(CAP);
    for (let size = first - 2; size <= first + 12; size++) {
      await expectVerdict(form(headers(size)), size >= first, `${label}, ${size}`, [5, 4096]);
    }
  });

  it("is refused once it is longer than the cap with no end yet, before the body ends", () => {
    const charsets = new PartCharsets(BOUNDARY);
    charsets.write(Buffer.from(`--${BOUNDARY}\r\n${DISPOSITION}\r\nX-A: `, "latin1"));
    for (const chunk of splitIntoChunks(Buffer.alloc(CAP - 200, "v"), 1000)) charsets.write(chunk);
    expect(charsets.malformed).toBe(false);
    charsets.write(Buffer.alloc(300, "v"));
    expect(charsets.malformed).toBe(true);
  });
});

describe("a header block the stage rewrites, at busboy's cap", () => {
  it("is refused from where its rewrite is over the cap: 27 bytes more, 2 of them counted twice", async () => {
    const headers = (size: number) =>
      `${DISPOSITION}; x="${"h".repeat(size)}"\r\nContent-Type: text/plain; charset=utf-8`;
    let first = 16 * 1024 - DISPOSITION.length - 80;
    while ((await busboyError(form(headers(first)))) === null) first += 1;
    for (let size = first - 32; size <= first + 2; size++) {
      const body = form(headers(size));
      const malformed = size >= first - 29;
      expect(stage([body]).malformed, `${size}`).toBe(malformed);
      expect(stage(splitIntoChunks(body, 4096)).malformed, `${size}, in chunks`).toBe(malformed);
      // Short of that, the part and its charset reach busboy.
      if (!malformed) expect(await charsets([body]), `${size}`).toEqual(["utf-8"]);
    }
  });
});

describe("the 2,000 header pairs of a part", () => {
  const fillers = (count: number) => Array.from({ length: count }, () => "X:y");

  it("reads a Content-Type that is the 1,999th pair, and drops one that is the 2,000th, as busboy does", async () => {
    for (const [count, record] of [
      [1_997, "iso-8859-1"],
      [1_998, null],
    ] as const) {
      const headers = [DISPOSITION, ...fillers(count), "Content-Type: text/plain; charset=iso-8859-1"].join(
        "\r\n",
      );
      const body = form(headers);
      expect(body.length).toBeLessThan(16 * 1024);
      expect(stage([body]).malformed).toBe(false);
      expect(await charsets([body]), `${count} fillers`).toEqual([record]);
      expect(await busboyError(body)).toBeNull();
    }
  });

  it("drops a Content-Disposition past the pairs too: that part is never emitted", async () => {
    for (const headers of [
      [...fillers(1_999), DISPOSITION],
      // A block the stage rewrites for busboy.
      ["Content-Type: text/plain; charset=iso-8859-1", ...fillers(1_998), DISPOSITION],
    ]) {
      expect(await charsets([form(headers.join("\r\n"))])).toEqual([]);
    }
  });
});

describe("after the closing delimiter", () => {
  it("reads nothing more, even a whole form in the same chunk", async () => {
    const form = `--${BOUNDARY}\r\n${DISPOSITION}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nx\r\n--${BOUNDARY}--`;
    const epilogue = `\r\n--${BOUNDARY}\r\n${DISPOSITION}\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\r\ny\r\n--${BOUNDARY}--\r\n`;
    for (const chunks of [
      [Buffer.from(form + epilogue, "latin1")],
      splitIntoChunks(Buffer.from(form + epilogue, "latin1"), 50),
    ]) {
      const { output, malformed } = stage(chunks);
      expect(output.toString("latin1")).toBe(
        form.replace("; charset=utf-8", "\r\nContent-Transfer-Encoding: charset=utf-8"),
      );
      expect(await charsets(chunks)).toEqual(["utf-8"]);
      expect(malformed).toBe(false);
    }
  });

  it("a malformed header stops the stage: nothing after it is read or rewritten", () => {
    const body = Buffer.from(
      `--${BOUNDARY}\r\nBad Header: x\r\n\r\nx\r\n--${BOUNDARY}\r\n${DISPOSITION}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ny\r\n--${BOUNDARY}--\r\n`,
      "latin1",
    );
    for (const chunks of [[body], splitIntoChunks(body, 9)]) {
      const { output, malformed } = stage(chunks);
      expect(malformed).toBe(true);
      expect(output.toString("latin1")).not.toContain("charset");
    }
  });
});
