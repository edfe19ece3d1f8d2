import { describe, expect, it } from "vitest";
import { readMultipart, type MultipartForm, type MultipartLimits } from "@/lib/http/body";
import { ApiError } from "@/lib/http/errors";
import { parseSmallForm, SMALL_FORM_BYTES } from "@/lib/http/small-form";
import { briefForm, multipartBody, type RawPart, textPart, validBrief } from "../support/contact";
import { splitIntoChunks } from "../support/files";
import { generator } from "../support/random";

/**
 * readMultipart reads a small body (Content-Length at most 64 KiB) whole with its own reader and
 * leaves whatever that reader does not take to busboy. Every body here is read both ways: with
 * Content-Length (the small-body reader first) and streamed in chunks without it (busboy alone),
 * and both must give the same form, or the same refusal, byte for byte.
 */

const BOUNDARY = "----small7Qx";
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const LIMITS: MultipartLimits = {
  maxBodyBytes: 1024 * 1024,
  maxFileBytes: 512,
  maxFieldBytes: 200,
  maxParts: 8,
  fileFields: ["brief"],
};

function request(body: Uint8Array, contentType: string, declared: boolean): Request {
  const chunks = splitIntoChunks(body, 7);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const headers: Record<string, string> = { "content-type": contentType };
  if (declared) headers["content-length"] = String(body.byteLength);
  return new Request("http://studio.test/api/contact", {
    method: "POST",
    body: stream,
    headers,
    duplex: "half",
  } as RequestInit);
}

type Outcome = { fields: [string, unknown][]; files: [string, unknown][] } | { error: string };

function describeForm(form: MultipartForm): Outcome {
  return {
    fields: [...form.fields],
    files: [...form.files].map(([name, files]) => [
      name,
      files.map((file) => ({ ...file, sink: null, chunks: Buffer.concat(file.chunks).toString("hex") })),
    ]),
  };
}

async function outcome(body: Uint8Array, contentType: string, declared: boolean): Promise<Outcome> {
  try {
    return describeForm(await readMultipart(request(body, contentType, declared), LIMITS));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { error: `${error.status} ${error.code} ${error.message}` };
  }
}

/** Both ways give the same; answers the outcome and whether the small-body reader took the body. */
async function expectSame(body: Uint8Array, contentType = CONTENT_TYPE, label = "") {
  const streamed = await outcome(body, contentType, false);
  expect(await outcome(body, contentType, true), label).toEqual(streamed);
  return { streamed, taken: parseSmallForm(Buffer.from(body), BOUNDARY, LIMITS) !== null };
}

async function formBytes(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const built = new Request("http://studio.test/", { method: "POST", body: form });
  return {
    body: Buffer.from(await built.arrayBuffer()),
    contentType: built.headers.get("content-type") ?? "",
  };
}

const fields = (...parts: [string, string][]): RawPart[] =>
  parts.map(([name, value]) => textPart(name, value));

describe("the small-body reader takes the common form and gives what busboy gives", () => {
  it("a browser's form: every field, the empty file input dropped", async () => {
    const form = briefForm(validBrief({ description: "Ünïcödé — «quotes», CRLF\r\nand --dashes" }));
    form.append("brief", new Blob([]), "");
    const { body, contentType } = await formBytes(form);
    const limits = { ...LIMITS, maxFieldBytes: 64 * 1024, maxParts: 64 };
    const small = parseSmallForm(body, contentType.split("boundary=")[1] as string, limits);
    expect(small?.get("name")).toEqual([{ value: "Ada Lovelace", truncated: false, invalidEncoding: false }]);
    const streamed = await readMultipart(request(body, contentType, false), limits);
    expect(streamed.files.size).toBe(0);
    expect(small).toEqual(streamed.fields);
  });

  it.each([
    ["plain fields", fields(["a", "1"], ["b", ""], ["a", "two"])],
    ["a field that looks like a delimiter", fields(["a", `x\r\n--${BOUNDARY.slice(0, -1)}`], ["b", "--"])],
    [
      "charsets",
      [
        textPart("a", Buffer.from([0xe9, 0x80]), "text/plain; charset=windows-1252"),
        textPart("b", "é", "text/plain; charset=UTF-8"),
        textPart("c", "x", "text/plain; charset=no-such-charset"),
        textPart("d", Buffer.from([0xff]), "text/plain"),
        textPart("e", "\ufeffbom"),
        textPart("f", "x", "not a type"),
      ],
    ],
    [
      "header names in any case, a tab before a value",
      [
        { headers: ['content-disposition:\tform-data; name="a"'], body: "1" },
        { headers: ["CONTENT-DISPOSITION: form-data; name=b", "content-TYPE: text/plain"], body: "2" },
      ],
    ],
    [
      "an empty file part typed octet-stream, no file name",
      [
        {
          headers: ['Content-Disposition: form-data; name="brief"', "Content-Type: application/octet-stream"],
          body: "",
        },
      ],
    ],
    ["a field just under its cap", fields(["a", "x".repeat(LIMITS.maxFieldBytes - 1)])],
    [
      "parts just under the cap",
      fields(...Array.from({ length: 7 }, (_, i): [string, string] => [`f${i}`, `${i}`])),
    ],
  ] as [string, RawPart[]][])("%s", async (label, parts) => {
    const { streamed, taken } = await expectSame(multipartBody(BOUNDARY, parts), CONTENT_TYPE, label);
    expect(taken, label).toBe(true);
    expect("fields" in streamed).toBe(true);
  });
});

describe("a part's disposition and the form's type, as browsers write them or not", () => {
  // Browsers' plain forms are read without busboy's header parsers; every other spelling goes
  // through them. Either way the form must be the one busboy gives.
  it.each([
    ["a name with blanks and punctuation", 'form-data; name="a b\'(c)!"'],
    ["a name with an escaped quote", 'form-data; name="a\\"b"'],
    ["a name with a backslash escape", 'form-data; name="a\\\\b"'],
    ["an unquoted name", "form-data; name=abc"],
    ["no blank after the semicolon", 'form-data;name="abc"'],
    ["two blanks", 'form-data;  name="abc"'],
    ["the type in capitals", 'Form-Data; name="abc"'],
    ["the parameter in capitals", 'form-data; NAME="abc"'],
    ["an empty name", 'form-data; name=""'],
    ["another type", 'attachment; name="abc"'],
    ["a name with a file name after it", 'form-data; name="abc"; filename=""'],
  ])("%s", async (label, disposition) => {
    const body = multipartBody(BOUNDARY, [{ headers: [`Content-Disposition: ${disposition}`], body: "1" }]);
    await expectSame(body, CONTENT_TYPE, label);
  });

  it.each([
    ["a quoted boundary", `multipart/form-data; boundary="${BOUNDARY}"`],
    ["the type in capitals", `Multipart/Form-Data; boundary=${BOUNDARY}`],
    ["the parameter in capitals", `multipart/form-data; BOUNDARY=${BOUNDARY}`],
    ["no blank after the semicolon", `multipart/form-data;boundary=${BOUNDARY}`],
    ["a parameter after the boundary", `multipart/form-data; boundary=${BOUNDARY}; charset=utf-8`],
    ["a boundary with every token character", "multipart/form-data; boundary=!#$%&'*+-.^_`|~09AZaz"],
  ])("%s", async (label, contentType) => {
    const boundary = contentType.includes("!#$") ? "!#$%&'*+-.^_`|~09AZaz" : BOUNDARY;
    const body = multipartBody(boundary, fields(["a", "1"], ["b", "2"]));
    const { streamed } = await expectSame(body, contentType, label);
    expect("fields" in streamed, label).toBe(true);
  });
});

describe("what the small-body reader leaves to busboy is answered as before", () => {
  const valid = multipartBody(BOUNDARY, fields(["a", "1"]));
  const text = valid.toString("latin1");
  it.each([
    [
      "a file",
      multipartBody(BOUNDARY, [
        { headers: ['Content-Disposition: form-data; name="brief"; filename="a.txt"'], body: "hi" },
      ]),
    ],
    [
      "a file sent under a text field's name",
      multipartBody(BOUNDARY, [
        { headers: ["Content-Disposition: form-data; name=\"a\"; filename*=utf-8''%C3%A9.txt"], body: "x" },
      ]),
    ],
    [
      "an empty file name with content",
      multipartBody(BOUNDARY, [
        {
          headers: [
            'Content-Disposition: form-data; name="brief"; filename=""',
            "Content-Type: application/octet-stream",
          ],
          body: "x",
        },
      ]),
    ],
    [
      "an octet-stream text part with content",
      multipartBody(BOUNDARY, [textPart("a", "x", "application/octet-stream")]),
    ],
    ["a field at its cap", multipartBody(BOUNDARY, fields(["a", "x".repeat(LIMITS.maxFieldBytes)]))],
    ["a field over its cap", multipartBody(BOUNDARY, fields(["a", "x".repeat(LIMITS.maxFieldBytes + 5)]))],
    [
      "parts at the cap",
      multipartBody(
        BOUNDARY,
        fields(...Array.from({ length: 8 }, (_, i): [string, string] => [`f${i}`, "1"])),
      ),
    ],
    [
      "parts over the cap",
      multipartBody(
        BOUNDARY,
        fields(...Array.from({ length: 12 }, (_, i): [string, string] => [`f${i}`, "1"])),
      ),
    ],
    ["a preamble", Buffer.from(`preamble\r\n${text}`, "latin1")],
    ["an epilogue", Buffer.from(`${text}epilogue`, "latin1")],
    ["no closing delimiter", Buffer.from(text.slice(0, text.lastIndexOf(`--${BOUNDARY}--`)), "latin1")],
    ["a cut-off body", valid.subarray(0, 30)],
    ["an empty body", Buffer.alloc(0)],
    [
      "junk after a delimiter",
      Buffer.from(text.replace(`--${BOUNDARY}\r\n`, `--${BOUNDARY}xx\r\n`), "latin1"),
    ],
    [
      "a delimiter in the headers",
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n--${BOUNDARY}\r\n\r\nx\r\n--${BOUNDARY}--`,
        "latin1",
      ),
    ],
    ["a part with no headers", Buffer.from(`--${BOUNDARY}\r\n\r\nx\r\n--${BOUNDARY}--`, "latin1")],
    [
      "a folded header",
      multipartBody(BOUNDARY, [{ headers: ["Content-Disposition: form-data;", ' name="a"'], body: "x" }]),
    ],
    [
      "another header",
      multipartBody(BOUNDARY, [
        {
          headers: ['Content-Disposition: form-data; name="a"', "Content-Transfer-Encoding: base64"],
          body: "eA==",
        },
      ]),
    ],
    [
      "a malformed header",
      multipartBody(BOUNDARY, [
        { headers: ['Content-Disposition: form-data; name="a"', "Content Type: text/plain"], body: "x" },
      ]),
    ],
    [
      "a name above ASCII",
      multipartBody(BOUNDARY, [
        { headers: ['Content-Disposition: form-data; name="é"'], body: Buffer.from("x") },
      ]),
    ],
    ["no name", multipartBody(BOUNDARY, [{ headers: ["Content-Disposition: form-data"], body: "x" }])],
    [
      "an empty name",
      multipartBody(BOUNDARY, [{ headers: ['Content-Disposition: form-data; name=""'], body: "x" }]),
    ],
    [
      "not form-data",
      multipartBody(BOUNDARY, [{ headers: ['Content-Disposition: attachment; name="a"'], body: "x" }]),
    ],
    ["no disposition", multipartBody(BOUNDARY, [{ headers: ["Content-Type: text/plain"], body: "x" }])],
    [
      "a header sent twice",
      multipartBody(BOUNDARY, [
        {
          headers: ['Content-Disposition: form-data; name="a"', 'Content-Disposition: form-data; name="b"'],
          body: "x",
        },
      ]),
    ],
  ] as [string, Buffer][])("%s", async (label, body) => {
    const { taken } = await expectSame(body, CONTENT_TYPE, label);
    expect(taken, label).toBe(false);
  });

  it.each([
    ["a boundary above ASCII", "multipart/form-data; boundary=é"],
    ["no boundary", "multipart/form-data"],
    ["another media type", "multipart/mixed; boundary=x"],
  ])("%s", async (label, contentType) => {
    await expectSame(multipartBody(BOUNDARY, fields(["a", "1"])), contentType, label);
  });

  it("a body declared larger than 64 KiB is streamed to busboy", async () => {
    const body = multipartBody(BOUNDARY, fields(["a", "1"]));
    const declared = request(body, CONTENT_TYPE, true);
    declared.headers.set("content-length", String(SMALL_FORM_BYTES + 1));
    // Streamed: busboy reads the body as it is, whatever the header said (undici does not check it).
    expect((await readMultipart(declared, LIMITS)).fields.get("a")?.[0]?.value).toBe("1");
  });

  it("bodies changed at random are answered alike both ways", async () => {
    const base = multipartBody(BOUNDARY, [
      ...fields(["name", "Ada"], ["email", "ada@example.com"], ["description", "x\r\ny"]),
      textPart("b", "é", "text/plain; charset=utf-8"),
      {
        headers: [
          'Content-Disposition: form-data; name="brief"; filename=""',
          "Content-Type: application/octet-stream",
        ],
        body: "",
      },
    ]);
    const random = generator(33);
    const alphabet = Buffer.from(`\r\n-;="${BOUNDARY}:aé\t `, "latin1");
    let takenCount = 0;
    for (let round = 0; round < 300; round++) {
      const bytes = Buffer.from(base);
      const edits: Buffer[] = [];
      let rest = bytes;
      for (let edit = random.int(1, 3); edit > 0; edit--) {
        const at = random.int(0, rest.length);
        const kind = random.int(0, 2);
        const piece = Buffer.from([
          random.next() < 0.8 ? (random.pick([...alphabet]) as number) : random.int(0, 255),
        ]);
        edits.push(rest.subarray(0, at));
        if (kind !== 1) edits.push(piece); // insert or replace
        rest = rest.subarray(kind === 0 ? at : Math.min(at + 1, rest.length));
      }
      edits.push(rest);
      const { taken } = await expectSame(Buffer.concat(edits), CONTENT_TYPE, `round ${round}`);
      if (taken) takenCount += 1;
    }
    // Both kinds came up: bodies the small-body reader took, and bodies it left to busboy.
    expect(takenCount).toBeGreaterThan(20);
    expect(takenCount).toBeLessThan(280);
  });
});
