import { describe, expect, it } from "vitest";
import { type FieldValue, type MultipartLimits, readMultipart } from "@/lib/http/body";
import { ApiError } from "@/lib/http/errors";
import { briefForm, multipartBody, type RawPart, textPart, validBrief } from "../support/contact";
import { splitIntoChunks } from "../support/files";

/**
 * readMultipart on whole requests, body by body: what the form holds, or how it is refused. Each
 * body is streamed in chunks of 7 bytes, so every part and header block is split.
 */

const BOUNDARY = "----form7Qx";
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const LIMITS: MultipartLimits = {
  maxBodyBytes: 1024 * 1024,
  maxFileBytes: 512,
  maxFieldBytes: 200,
  maxParts: 8,
  fileFields: ["brief"],
};

function request(body: Uint8Array, contentType: string): Request {
  const chunks = splitIntoChunks(body, 7);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
  return new Request("http://studio.test/api/contact", {
    method: "POST",
    body: stream,
    headers: { "content-type": contentType },
    duplex: "half",
  } as RequestInit);
}

type Read =
  | Record<string, (string | FieldValue)[]>
  | { fields: Record<string, (string | FieldValue)[]>; files: Record<string, unknown[]> }
  | string;

/** The form in short: each field's values (a plain string when neither flag is set), the files if any, or the refusal. */
async function read(body: Uint8Array, contentType = CONTENT_TYPE, limits = LIMITS): Promise<Read> {
  try {
    const form = await readMultipart(request(body, contentType), limits);
    const fields: Record<string, (string | FieldValue)[]> = {};
    for (const [name, values] of form.fields) {
      fields[String(name)] = values.map((value) =>
        value.truncated || value.invalidEncoding ? value : value.value,
      );
    }
    if (form.files.size === 0) return fields;
    const files: Record<string, unknown[]> = {};
    for (const [name, list] of form.files) {
      files[name] = list.map(({ filename, size, truncated, chunks }) => ({
        filename,
        size,
        truncated,
        bytes: Buffer.concat(chunks).toString("latin1"),
      }));
    }
    return { fields, files };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return `${error.status} ${error.message}`;
  }
}

const fields = (...parts: [string, string][]): RawPart[] =>
  parts.map(([name, value]) => textPart(name, value));
const numbered = (count: number, value?: string) =>
  fields(...Array.from({ length: count }, (_, i): [string, string] => [`f${i}`, value ?? `${i}`]));
const invalid: FieldValue = { value: "", truncated: false, invalidEncoding: true };
const MALFORMED = "400 The form data could not be read: it is malformed or incomplete.";
const TOO_MANY = "413 The form has too many fields.";

describe("readMultipart", () => {
  it("reads a browser's form: every field, the empty file input dropped", async () => {
    const form = briefForm(validBrief({ description: "Ünïcödé — «quotes», CRLF\r\nand --dashes" }));
    form.append("brief", new Blob([]), "");
    const built = new Request("http://studio.test/", { method: "POST", body: form });
    const body = new Uint8Array(await built.arrayBuffer());
    const limits = { ...LIMITS, maxFieldBytes: 64 * 1024, maxParts: 64 };
    const expected = Object.fromEntries(
      Object.entries(validBrief({ description: "Ünïcödé — «quotes», CRLF\r\nand --dashes" })).map(
        ([k, v]) => [k, [v]],
      ),
    );
    expect(await read(body, built.headers.get("content-type") ?? "", limits)).toEqual(expected);
  });

  const valid = multipartBody(BOUNDARY, fields(["a", "1"]));
  const text = valid.toString("latin1");
  const one = (headers: string[], body: string | Buffer = "x") =>
    multipartBody(BOUNDARY, [{ headers, body }]);

  it.each<[string, Buffer, Read]>([
    [
      "plain fields",
      multipartBody(BOUNDARY, fields(["a", "1"], ["b", ""], ["a", "two"])),
      { a: ["1", "two"], b: [""] },
    ],
    [
      "a field that looks like a delimiter",
      multipartBody(BOUNDARY, fields(["a", `x\r\n--${BOUNDARY.slice(0, -1)}`], ["b", "--"])),
      { a: [`x\r\n--${BOUNDARY.slice(0, -1)}`], b: ["--"] },
    ],
    [
      "charsets",
      multipartBody(BOUNDARY, [
        textPart("a", Buffer.from([0xe9, 0x80]), "text/plain; charset=windows-1252"),
        textPart("b", "é", "text/plain; charset=UTF-8"),
        textPart("c", "x", "text/plain; charset=no-such-charset"),
        textPart("d", Buffer.from([0xff]), "text/plain"),
        textPart("e", "\ufeffbom"),
        textPart("f", "x", "not a type"),
      ]),
      { a: ["é€"], b: ["é"], c: [invalid], d: [invalid], e: ["bom"], f: ["x"] },
    ],
    [
      "header names in any case, a tab before a value",
      multipartBody(BOUNDARY, [
        { headers: ['content-disposition:\tform-data; name="a"'], body: "1" },
        { headers: ["CONTENT-DISPOSITION: form-data; name=b", "content-TYPE: text/plain"], body: "2" },
      ]),
      { a: ["1"], b: ["2"] },
    ],
    [
      "an empty file part typed octet-stream, no file name",
      one(['Content-Disposition: form-data; name="brief"', "Content-Type: application/octet-stream"], ""),
      {},
    ],
    [
      "a file",
      one(['Content-Disposition: form-data; name="brief"; filename="a.txt"'], "hi"),
      { fields: {}, files: { brief: [{ filename: "a.txt", size: 2, truncated: false, bytes: "hi" }] } },
    ],
    [
      "a file sent under a text field's name: counted, not kept",
      one(["Content-Disposition: form-data; name=\"a\"; filename*=utf-8''%C3%A9.txt"]),
      { fields: {}, files: { a: [{ filename: "é.txt", size: 1, truncated: false, bytes: "" }] } },
    ],
    [
      "an empty file name with content",
      one([
        'Content-Disposition: form-data; name="brief"; filename=""',
        "Content-Type: application/octet-stream",
      ]),
      { fields: {}, files: { brief: [{ filename: "", size: 1, truncated: false, bytes: "x" }] } },
    ],
    [
      "an octet-stream text part with content",
      multipartBody(BOUNDARY, [textPart("a", "x", "application/octet-stream")]),
      { fields: {}, files: { a: [{ filename: "", size: 1, truncated: false, bytes: "" }] } },
    ],
    [
      "a field just under its cap",
      multipartBody(BOUNDARY, fields(["a", "x".repeat(199)])),
      { a: ["x".repeat(199)] },
    ],
    [
      "a field at its cap",
      multipartBody(BOUNDARY, fields(["a", "x".repeat(200)])),
      { a: [{ value: "x".repeat(200), truncated: true, invalidEncoding: false }] },
    ],
    [
      "a field over its cap",
      multipartBody(BOUNDARY, fields(["a", "x".repeat(205)])),
      { a: [{ value: "x".repeat(200), truncated: true, invalidEncoding: false }] },
    ],
    [
      "parts just under the cap",
      multipartBody(BOUNDARY, numbered(7)),
      { f0: ["0"], f1: ["1"], f2: ["2"], f3: ["3"], f4: ["4"], f5: ["5"], f6: ["6"] },
    ],
    ["parts at the cap", multipartBody(BOUNDARY, numbered(8, "1")), TOO_MANY],
    ["parts over the cap", multipartBody(BOUNDARY, numbered(12, "1")), TOO_MANY],
    ["a preamble", Buffer.from(`preamble\r\n${text}`, "latin1"), { a: ["1"] }],
    ["an epilogue", Buffer.from(`${text}epilogue`, "latin1"), { a: ["1"] }],
    [
      "no closing delimiter",
      Buffer.from(text.slice(0, text.lastIndexOf(`--${BOUNDARY}--`)), "latin1"),
      MALFORMED,
    ],
    ["a cut-off body", valid.subarray(0, 30), MALFORMED],
    ["an empty body", Buffer.alloc(0), MALFORMED],
    [
      "junk after a delimiter",
      Buffer.from(text.replace(`--${BOUNDARY}\r\n`, `--${BOUNDARY}xx\r\n`), "latin1"),
      {},
    ],
    [
      "a delimiter in the headers",
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n--${BOUNDARY}\r\n\r\nx\r\n--${BOUNDARY}--`,
        "latin1",
      ),
      MALFORMED,
    ],
    ["a part with no headers", Buffer.from(`--${BOUNDARY}\r\n\r\nx\r\n--${BOUNDARY}--`, "latin1"), MALFORMED],
    ["a folded header", one(["Content-Disposition: form-data;", ' name="a"']), { a: ["x"] }],
    [
      "a Content-Transfer-Encoding: the value as sent",
      one(['Content-Disposition: form-data; name="a"', "Content-Transfer-Encoding: base64"], "eA=="),
      { a: ["eA=="] },
    ],
    [
      "a file's name in UTF-8, and a Content-Type",
      one([
        `Content-Disposition: form-data; name="brief"; filename="${Buffer.from("brief-é.pdf").toString("latin1")}"`,
        "Content-Type: application/pdf",
      ]),
      { fields: {}, files: { brief: [{ filename: "brief-é.pdf", size: 1, truncated: false, bytes: "x" }] } },
    ],
    [
      "a malformed header",
      one(['Content-Disposition: form-data; name="a"', "Content Type: text/plain"]),
      MALFORMED,
    ],
    // The header is latin1 bytes here, and busboy reads names as UTF-8.
    ["a name above ASCII", one(['Content-Disposition: form-data; name="é"']), { "\ufffd": ["x"] }],
    ["no name", one(["Content-Disposition: form-data"]), { undefined: ["x"] }],
    ["an empty name", one(['Content-Disposition: form-data; name=""']), { undefined: ["x"] }],
    ["not form-data", one(['Content-Disposition: attachment; name="a"']), {}],
    ["no disposition", one(["Content-Type: text/plain"]), {}],
    [
      "a header sent twice: the first counts",
      one(['Content-Disposition: form-data; name="a"', 'Content-Disposition: form-data; name="b"']),
      { a: ["x"] },
    ],
  ])("%s", async (_, body, expected) => {
    expect(await read(body)).toEqual(expected);
  });

  it.each([
    ["a name with blanks and punctuation", 'form-data; name="a b\'(c)!"', "a b'(c)!"],
    ["a name with an escaped quote", 'form-data; name="a\\"b"', 'a"b'],
    ["a name with a backslash escape", 'form-data; name="a\\\\b"', "a\\b"],
    ["an unquoted name", "form-data; name=abc", "abc"],
    ["no blank after the semicolon", 'form-data;name="abc"', "abc"],
    ["two blanks", 'form-data;  name="abc"', "abc"],
    ["the type in capitals", 'Form-Data; name="abc"', "abc"],
    ["the parameter in capitals", 'form-data; NAME="abc"', "abc"],
    ["an empty name", 'form-data; name=""', "undefined"],
    ["another type", 'attachment; name="abc"', null],
    ["a name with a file name after it", 'form-data; name="abc"; filename=""', "abc"],
  ])("a disposition: %s", async (_, disposition, name) => {
    const body = multipartBody(BOUNDARY, [{ headers: [`Content-Disposition: ${disposition}`], body: "1" }]);
    expect(await read(body)).toEqual(name === null ? {} : { [name]: ["1"] });
  });

  it.each([
    ["a quoted boundary", `multipart/form-data; boundary="${BOUNDARY}"`],
    ["the type in capitals", `Multipart/Form-Data; boundary=${BOUNDARY}`],
    ["the parameter in capitals", `multipart/form-data; BOUNDARY=${BOUNDARY}`],
    ["no blank after the semicolon", `multipart/form-data;boundary=${BOUNDARY}`],
    ["a parameter after the boundary", `multipart/form-data; boundary=${BOUNDARY}; charset=utf-8`],
    ["a boundary with every token character", "multipart/form-data; boundary=!#$%&'*+-.^_`|~09AZaz"],
  ])("a form type: %s", async (_, contentType) => {
    const boundary = contentType.includes("!#$") ? "!#$%&'*+-.^_`|~09AZaz" : BOUNDARY;
    const body = multipartBody(boundary, fields(["a", "1"], ["b", "2"]));
    expect(await read(body, contentType)).toEqual({ a: ["1"], b: ["2"] });
  });

  it("a form type: a quoted boundary above ASCII, its delimiters in UTF-8 as busboy looks for them", async () => {
    const parts = [
      textPart("a", "1"),
      textPart("b", Buffer.from("é", "latin1"), "text/plain; charset=utf-8"),
    ];
    // Written one byte a character, then all of it as UTF-8: the boundary and the value "é" alike.
    const body = Buffer.from(multipartBody("é-x", parts).toString("latin1"), "utf8");
    expect(await read(body, 'multipart/form-data; boundary="é-x"')).toEqual({ a: ["1"], b: ["é"] });
  });

  it.each([
    ["a boundary above ASCII", "multipart/form-data; boundary=é", "its boundary is missing."],
    ["no boundary", "multipart/form-data", "its boundary is missing."],
    ["another media type", "multipart/mixed; boundary=x", "its boundary is missing."],
    ["an empty boundary", 'multipart/form-data; boundary=""', "its boundary is empty."],
  ])("a form type: %s", async (_, contentType, message) => {
    expect(await read(multipartBody(BOUNDARY, fields(["a", "1"])), contentType)).toBe(
      `400 The form data could not be read: ${message}`,
    );
  });
});
