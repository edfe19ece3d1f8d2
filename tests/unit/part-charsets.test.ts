import { randomBytes } from "node:crypto";
import busboy from "busboy";
import { describe, expect, it } from "vitest";
import { declaredCharset, decodePartText, PartCharsets, parseContentType } from "@/lib/http/part-charsets";
import { multipartBody, type RawPart, textPart } from "../support/contact";
import { splitAt, splitIntoChunks } from "../support/files";
import { generator } from "../support/random";

const BOUNDARY = "----stage7Qx";
const NAME = "José Müller";

/** Runs a body through the stage in the given chunks: what busboy would get. */
function stage(chunks: readonly Uint8Array[]) {
  const charsets = new PartCharsets(BOUNDARY);
  const output = [...chunks.map((chunk) => charsets.write(chunk)), charsets.end()];
  return { output: Buffer.concat(output), malformed: charsets.malformed };
}

type Part =
  { kind: "field"; name: string; value: string | null } | { kind: "file"; name: string; bytes: Buffer };

/**
 * Parses a body the way readMultipart does: the stage, then busboy reading text as latin1; also
 * the charset busboy handed over with each part, in order.
 */
function parse(
  chunks: readonly Uint8Array[],
): Promise<{ parts: Part[]; charsets: (string | null)[]; error: string | null }> {
  const stage = new PartCharsets(BOUNDARY);
  const parser = busboy({
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    defCharset: "latin1",
    defParamCharset: "utf8",
  });
  const parts: Part[] = [];
  const charsets: (string | null)[] = [];
  parser.on("field", (name, raw, info) => {
    const charset = declaredCharset(info.encoding);
    charsets.push(charset);
    parts.push({ kind: "field", name, value: decodePartText(raw, charset) });
  });
  parser.on("file", (name, stream, info) => {
    charsets.push(declaredCharset(info.encoding));
    const bytes: Buffer[] = [];
    const part: Part = { kind: "file", name, bytes: Buffer.alloc(0) };
    parts.push(part);
    stream.on("data", (chunk: Buffer) => bytes.push(chunk));
    stream.on("end", () => (part.bytes = Buffer.concat(bytes)));
    stream.on("error", () => {});
  });
  return new Promise((resolve) => {
    parser.on("error", (error: Error) => resolve({ parts, charsets, error: error.message }));
    parser.on("close", () => resolve({ parts, charsets, error: null }));
    for (const chunk of chunks) parser.write(stage.write(chunk));
    parser.end(stage.end());
  });
}

/** What busboy emits for the body itself, names and kinds only, and whether it fails. */
function direct(chunks: readonly Uint8Array[]): Promise<{ parts: string[]; failed: boolean }> {
  const parser = busboy({
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    defCharset: "latin1",
  });
  const parts: string[] = [];
  parser.on("field", (name) => parts.push(`field ${name}`));
  parser.on("file", (name, stream) => {
    parts.push(`file ${name}`);
    stream.resume();
    stream.on("error", () => {});
  });
  return new Promise((resolve) => {
    parser.on("error", () => resolve({ parts, failed: true }));
    parser.on("close", () => resolve({ parts, failed: false }));
    for (const chunk of chunks) parser.write(chunk);
    parser.end();
  });
}

function oneByteAtATime(bytes: Uint8Array): Uint8Array[] {
  return splitIntoChunks(bytes, 1);
}

const filePart = (name: string, bytes: Uint8Array, contentType: string): RawPart => ({
  headers: [
    `Content-Disposition: form-data; name="${name}"; filename="brief.bin"`,
    `Content-Type: ${contentType}`,
  ],
  body: bytes,
});

/** Bytes that look like a form's framing: CRs, LFs, dashes and the boundary itself, but no delimiter. */
function trickyFile(): Buffer {
  return Buffer.concat([
    Buffer.from(`\r\n-\r\n--${BOUNDARY.slice(0, -1)}\r\r\n--\r\n`, "latin1"),
    randomBytes(4096),
    Buffer.from(`charset=utf-8\r\nContent-Type: text/plain; charset=base64\r\n\r\n`, "latin1"),
    Buffer.from([0xff, 0xfe, 0x00, 0xe9, 0x0d]),
  ]);
}

const labelled: RawPart[] = [
  textPart("name", NAME, "text/plain; charset=utf-8"),
  textPart("company", "Analytical Engines", undefined),
  textPart("role", Buffer.from("Gründerin", "latin1"), 'text/plain; charset="ISO-8859-1"'),
  filePart("brief", Buffer.from("%PDF-1.4 not really"), "application/pdf; charset=utf-8"),
  textPart("description", Buffer.from("東京 café", "utf16le"), "text/plain;charset=UTF-16LE"),
];
const labelledBody = multipartBody(BOUNDARY, labelled);
const expectedParts: Part[] = [
  { kind: "field", name: "name", value: NAME },
  { kind: "field", name: "company", value: "Analytical Engines" },
  { kind: "field", name: "role", value: "Gründerin" },
  { kind: "file", name: "brief", bytes: Buffer.from("%PDF-1.4 not really") },
  { kind: "field", name: "description", value: "東京 café" },
];

describe("PartCharsets: the stage between the body and busboy", () => {
  it("passes a browser's body (no charset anywhere) on byte for byte, however it is chunked", async () => {
    const body = multipartBody(BOUNDARY, [
      textPart("name", NAME),
      textPart("description", "Line one\r\nLine two, with --dashes-- and \r\n-- almost a boundary"),
      filePart("brief", trickyFile(), "application/octet-stream"),
    ]);
    for (const chunks of [
      [body],
      oneByteAtATime(body),
      splitIntoChunks(body, 7),
      splitIntoChunks(body, 4096),
    ]) {
      const result = stage(chunks);
      // All but the CRLF after the closing delimiter: the epilogue, which busboy does not read.
      expect(result.output.equals(body.subarray(0, -2))).toBe(true);
      expect(result.malformed).toBe(false);
      expect((await parse(chunks)).charsets).toEqual([null, null, null]);
    }
  });

  it("moves each part's charset out of its Content-Type into the encoding busboy hands over with the part", async () => {
    const text = stage([labelledBody]).output.toString("latin1");
    expect(text).not.toMatch(/;\s*charset/i);
    const tagged = (type: string, charset: string) =>
      `\r\nContent-Type: ${type}\r\nContent-Transfer-Encoding: charset=${charset}\r\n\r\n`;
    expect(text).toContain(`name="name"${tagged("text/plain", "utf-8")}`);
    expect(text).toContain(`name="role"${tagged("text/plain", "iso-8859-1")}`);
    expect(text).toContain(`filename="brief.bin"${tagged("application/pdf", "utf-8")}`);
    expect(text).toContain('name="company"\r\n\r\nAnalytical Engines\r\n');
    expect((await parse([labelledBody])).charsets).toEqual([
      "utf-8",
      null,
      "iso-8859-1",
      "utf-8",
      "utf-16le",
    ]);
  });

  it("decodes every part through busboy from its exact bytes, by the charset it declared", async () => {
    expect(await parse([labelledBody])).toMatchObject({ parts: expectedParts, error: null });
  });

  it("gives the same result with the body cut at every byte, and one byte at a time", async () => {
    const whole = stage([labelledBody]);
    for (let at = 0; at <= labelledBody.length; at++) {
      const split = stage(splitAt(labelledBody, at));
      expect(split.output.equals(whole.output), `cut at ${at}`).toBe(true);
      expect(split.malformed, `cut at ${at}`).toBe(false);
    }
    expect(await parse(oneByteAtATime(labelledBody))).toMatchObject({ parts: expectedParts, error: null });
  });

  it("keeps files byte for byte, whatever charset their part names", async () => {
    const bytes = trickyFile();
    const body = multipartBody(BOUNDARY, [
      textPart("name", NAME, "text/plain; charset=utf-8"),
      filePart("brief", bytes, "application/octet-stream; charset=utf-8"),
      filePart("other", bytes, "text/plain; charset=base64"),
    ]);
    for (const chunks of [[body], oneByteAtATime(body), splitIntoChunks(body, 13)]) {
      const { parts, error } = await parse(chunks);
      expect(error).toBeNull();
      expect(parts).toEqual([
        { kind: "field", name: "name", value: NAME },
        { kind: "file", name: "brief", bytes },
        { kind: "file", name: "other", bytes },
      ]);
    }
  });

  it("gives the parts after one that busboy skips their own charsets", async () => {
    const body = multipartBody(BOUNDARY, [
      { headers: ["Content-Type: text/plain; charset=base64"], body: "no disposition" },
      {
        headers: ['Content-Disposition: attachment; name="x"', "Content-Type: text/plain; charset=base64"],
        body: "x",
      },
      { headers: ["Content-Disposition: ;;;", "Content-Type: text/plain; charset=base64"], body: "broken" },
      // A value that starts with a blank, from a folded line: not a form-data disposition to busboy.
      {
        headers: ["Content-Disposition:", ' form-data; name="y"', "Content-Type: text/plain; charset=base64"],
        body: "folded",
      },
      textPart("role", Buffer.from("Gründerin", "latin1"), "text/plain; charset=iso-8859-1"),
      textPart("name", NAME, "text/plain; charset=utf-8"),
    ]);
    expect(await parse(oneByteAtATime(body))).toEqual({
      parts: [
        { kind: "field", name: "role", value: "Gründerin" },
        { kind: "field", name: "name", value: NAME },
      ],
      charsets: ["iso-8859-1", "utf-8"],
      error: null,
    });
  });

  it("reads the Content-Type as busboy does: the first one counts, folded and lowercase-named ones too", async () => {
    const body = multipartBody(BOUNDARY, [
      {
        headers: [
          'content-disposition: form-data; name="a"',
          "content-type:text/plain;",
          "  charset=iso-8859-1",
        ],
        body: Buffer.from("Gründerin", "latin1"),
      },
      {
        headers: [
          'Content-Disposition: form-data; name="b"',
          "Content-Type: text/plain",
          "Content-Type: text/plain; charset=base64",
        ],
        body: NAME,
      },
    ]);
    expect((await parse([body])).charsets).toEqual(["iso-8859-1", null]);
    expect((await parse(oneByteAtATime(body))).parts).toEqual([
      { kind: "field", name: "a", value: "Gründerin" },
      { kind: "field", name: "b", value: NAME },
    ]);
  });

  it("never takes a part's own Content-Transfer-Encoding for a charset", async () => {
    const body = multipartBody(BOUNDARY, [
      {
        headers: ['Content-Disposition: form-data; name="a"', "Content-Transfer-Encoding: charset=utf-16le"],
        body: NAME,
      },
      {
        headers: [
          "Content-Transfer-Encoding: charset=utf-16le",
          'Content-Disposition: form-data; name="b"',
          "Content-Type: text/plain; charset=iso-8859-1",
        ],
        body: Buffer.from("Gründerin", "latin1"),
      },
      {
        headers: ['Content-Disposition: form-data; name="c"', "content-transfer-encoding: 8bit"],
        body: NAME,
      },
    ]);
    expect(await parse([body])).toMatchObject({
      parts: [
        { kind: "field", name: "a", value: NAME },
        { kind: "field", name: "b", value: "Gründerin" },
        { kind: "field", name: "c", value: NAME },
      ],
      charsets: [null, "iso-8859-1", null],
      error: null,
    });
  });

  // After a delimiter busboy wants "--" or CRLF; a dash or CR not followed by the rest is part
  // data, and a delimiter right after a lone dash or CR it does not see as one.
  it.each([
    ["a dash, then another byte", "-x\r\n"],
    ["a CR, then another byte", "\rx\r\n"],
    ["another byte, then LF and a header busboy would refuse", "x\nBad Header: x\r\n\r\nignored\r\n"],
    [
      "a lone dash, then a delimiter whose part busboy never reads",
      `-\r\n--${BOUNDARY}\r\nBad Header: x\r\n\r\nignored\r\n`,
    ],
    [
      "a lone CR, then a delimiter whose part busboy never reads",
      `\r\r\n--${BOUNDARY}\r\nBad Header: x\r\n\r\nignored\r\n`,
    ],
  ])("follows busboy after a delimiter: %s", async (_, after) => {
    const [first, second] = [
      multipartBody(BOUNDARY, [textPart("a", NAME, "text/plain; charset=utf-8")]),
      multipartBody(BOUNDARY, [
        textPart("b", Buffer.from("Gründerin", "latin1"), "text/plain; charset=iso-8859-1"),
      ]),
    ].map((body) => body.toString("latin1"));
    // The first form's closing "--" and CRLF become `after`; the second form follows on a new delimiter.
    const body = Buffer.from(`${(first as string).slice(0, -4)}${after}${second as string}`, "latin1");
    // Whole, busboy reads parts a and b; one byte at a time, it may see the delimiter after a lone
    // dash or CR (its reading depends on the chunks there), and refuse the bad header: so may the stage.
    expect((await direct([body])).failed).toBe(false);
    for (const chunks of [[body], oneByteAtATime(body)]) {
      const alone = await direct(chunks);
      expect(stage(chunks).malformed).toBe(alone.failed);
      if (alone.failed) continue;
      expect(alone.parts).toEqual(["field a", "field b"]);
      expect(await parse(chunks)).toMatchObject({
        parts: [
          { kind: "field", name: "a", value: NAME },
          { kind: "field", name: "b", value: "Gründerin" },
        ],
        charsets: ["utf-8", "iso-8859-1"],
        error: null,
      });
    }
  });

  it("passes the preamble on and drops what follows the closing delimiter", async () => {
    const form = multipartBody(BOUNDARY, [textPart("name", NAME, "text/plain; charset=utf-8")]);
    const epilogue = `epilogue\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="late"\r\n\r\nx\r\n--${BOUNDARY}--`;
    const body = Buffer.concat([Buffer.from("A preamble.\r\n"), form, Buffer.from(epilogue)]);
    const { output } = stage(oneByteAtATime(body));
    expect(output.toString("latin1")).toBe(
      `A preamble.\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: charset=utf-8\r\n\r\n${Buffer.from(NAME).toString("latin1")}\r\n--${BOUNDARY}--`,
    );
    expect((await parse(oneByteAtATime(body))).charsets).toEqual(["utf-8"]);
  });

  it.each([
    ["a header line without a colon", `--${BOUNDARY}\r\nContent-Disposition\r\n\r\nx\r\n--${BOUNDARY}--\r\n`],
    [
      "a part header over 16 KiB",
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"; x="${"h".repeat(17 * 1024)}"\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
    ],
    [
      "a boundary delimiter inside a part's header block",
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n--${BOUNDARY}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
    ],
  ])("calls a body with %s malformed, however it is chunked", (_, text) => {
    const body = Buffer.from(text, "latin1");
    expect(stage([body]).malformed).toBe(true);
    expect(stage(oneByteAtATime(body)).malformed).toBe(true);
  });

  it("agrees with busboy on a header it refuses: busboy reports the same body as malformed", async () => {
    const body = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
      "latin1",
    );
    expect((await parse([body])).error).toBe("Malformed part header");
  });

  it("hands busboy a part header cut off by the end of the body as it came", () => {
    const body = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nContent-Ty`,
      "latin1",
    );
    const { output, malformed } = stage(splitIntoChunks(body, 5));
    expect(output.equals(body)).toBe(true);
    expect(malformed).toBe(false);
  });
});

describe("parseContentType against busboy", () => {
  /** busboy alone on a one-part body: the part's kind, media type and value (its own decoding). */
  function busboyReads(contentType: string): Promise<string> {
    const body = multipartBody(BOUNDARY, [textPart("a", Buffer.from([0x41, 0xc3, 0xa9, 0xff]), contentType)]);
    const parser = busboy({
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
      defCharset: "latin1", // not UTF-8, so that a part read without a charset reads otherwise
    });
    let read = "nothing";
    parser.on("field", (_name, value, info) => (read = `field ${info.mimeType} ${JSON.stringify(value)}`));
    parser.on("file", (_name, stream, info) => {
      read = `file ${info.mimeType}`;
      stream.resume();
    });
    return new Promise((resolve, reject) => {
      parser.on("error", reject);
      parser.on("close", () => resolve(read));
      parser.end(body);
    });
  }

  // Each spelling, and the same Content-Type written plainly from what parseContentType read,
  // must mean the same to busboy: the same kind of part, media type and decoding.
  it.each([
    "text/plain; charset=utf-8",
    "text/plain;charset=UTF-8",
    "TEXT/Plain ;\tCHARSET=utf-8",
    "text/plain; charset=utf-8 \t",
    'text/plain; charset="utf-8"',
    'text/plain; charset="utf\\-8"',
    'text/plain; charset="ut\\\\f-8"',
    'text/plain; charset=""',
    "text/plain; charset=utf-8; charset=latin1",
    "text/plain; charset=latin1; charset=utf-8",
    'text/plain; a="b;c\\""; charset=utf-8',
    "text/plain; =x; charset=utf-8",
    "text/plain; charset=utf-8;",
    "text/plain; charset = utf-8",
    "text/plain; charset=",
    'text/plain; charset="utf-8',
    "text/plain;; charset=utf-8",
    "text/plain charset=utf-8",
    'text/plain; a=b"c; charset=utf-8',
    "text/; charset=utf-8",
    "/plain; charset=utf-8",
    "text; charset=utf-8",
    "text/plain/x; charset=utf-8",
    "application/octet-stream; charset=utf-8",
    "Application/Octet-Stream",
    "text/plain; charset=x-no-such-charset",
    "text/plain; charset=base64",
    "text/plain; charset=\u00e9",
  ])("%s", async (contentType) => {
    const read = parseContentType(contentType);
    const charset = read?.params.get("charset");
    const plain =
      read === null
        ? "text/plain"
        : `${read.mediaType}${charset === undefined ? "" : `; charset="${charset.replace(/[\\"]/g, "\\$&")}"`}`;
    expect(await busboyReads(plain)).toBe(await busboyReads(contentType));
  });
});

describe("decodePartText", () => {
  const latin1 = (bytes: Buffer) => bytes.toString("latin1");
  const utf8 = Buffer.from(NAME, "utf8");

  it.each<[string, string | null, Buffer, string | null]>([
    ["no charset: UTF-8", null, utf8, NAME],
    ["utf-8", "utf-8", utf8, NAME],
    ["utf8", "utf8", utf8, NAME],
    ["us-ascii: read as UTF-8", "us-ascii", utf8, NAME],
    ["an empty charset: read as UTF-8", "", utf8, NAME],
    ["iso-8859-1", "iso-8859-1", Buffer.from(NAME, "latin1"), NAME],
    ["windows-1252", "windows-1252", Buffer.from([0x80, 0x20, 0x93, 0x4a, 0x94, 0x9d]), "€ “J”\u009d"],
    ["iso-8859-1 means windows-1252 (Encoding Standard)", "iso-8859-1", Buffer.from([0x80]), "€"],
    ["utf-16le", "utf-16le", Buffer.from(NAME, "utf16le"), NAME],
    ["no charset, bytes that are not UTF-8", null, Buffer.from(NAME, "latin1"), null],
    ["utf-8, bytes that are not UTF-8", "utf-8", Buffer.from(NAME, "latin1"), null],
    ["utf-8, a truncated sequence", "utf-8", Buffer.from([0x4a, 0xc3]), null],
    ["us-ascii, bytes that are not UTF-8", "us-ascii", Buffer.from([0xe9]), null],
    ["base64: no charset of text", "base64", utf8, null],
    ["an unknown charset", "x-no-such-charset", utf8, null],
    ["a charset TextDecoder refuses", "iso-2022-kr", utf8, null],
  ])("%s", (_, charset, bytes, expected) => {
    expect(decodePartText(latin1(bytes), charset)).toBe(expected);
  });

  it("never answers U+FFFD for bytes it could not read", () => {
    for (const charset of [null, "utf-8", "utf-16le", "shift_jis"]) {
      const value = decodePartText(latin1(Buffer.from([0x41, 0xff, 0xfe, 0xd8, 0x00, 0x81])), charset);
      if (value !== null) expect(value).not.toContain("\ufffd");
    }
  });
});

describe("PartCharsets against busboy on generated bodies", () => {
  it("emits the same parts as busboy alone for 300 mutated bodies", async () => {
    const random = generator(20_261_123);
    for (let index = 0; index < 300; index++) {
      const parts: RawPart[] = Array.from({ length: random.int(1, 5) }, (_, n) =>
        random.next() < 0.7
          ? textPart(
              `f${n}`,
              random.pick([NAME, "", "x\r\ny", "--"]),
              random.pick([
                undefined,
                undefined,
                "text/plain; charset=utf-8",
                "text/plain;\r\n charset=UTF-8",
              ]),
            )
          : filePart(`b${n}`, trickyFile(), "application/octet-stream"),
      );
      let body = Buffer.from(multipartBody(BOUNDARY, parts));
      for (let edit = random.int(0, 4); edit > 0; edit--) {
        const at = random.int(0, body.length - 1);
        const bytes = Buffer.from(
          random.pick(["\r\n", "\r", "-", ":", " ", "\r\n\r\n", `\r\n--${BOUNDARY}`, "x"]),
        );
        body =
          random.next() < 0.5
            ? Buffer.concat([body.subarray(0, at), bytes, body.subarray(at)])
            : Buffer.concat([body.subarray(0, at), body.subarray(at + random.int(1, 8))]);
      }
      const chunks = splitIntoChunks(body, random.pick([1, 3, 64, 100_000]));
      const label = `generated body #${index}`;
      const staged = stage(chunks);
      if (staged.malformed) continue;
      if (!/content-type|content-transfer-encoding/i.test(body.toString("latin1"))) {
        // Without either header anywhere, busboy gets the body as it came (less any epilogue).
        expect(body.subarray(0, staged.output.length).equals(staged.output), label).toBe(true);
      }
      const expected = await direct(chunks);
      const actual = await parse(chunks);
      expect(
        actual.parts.map((part) => `${part.kind} ${part.name}`),
        label,
      ).toEqual(expected.parts);
    }
  });
});
