import { PassThrough } from "node:stream";
import MimeNode from "nodemailer/lib/mime-node";
import { Encoder as QpEncoder } from "nodemailer/lib/qp";
import { describe, expect, it } from "vitest";
import { EncodedTemplate } from "@/lib/notify/encoded-template";

/**
 * A body encoded once per template and filled in per message (lib/notify/encoded-template.ts) is
 * what nodemailer makes of the filled body: the same transfer encoding (`MimeNode`'s choice) and,
 * through nodemailer's own quoted-printable encoder stream, the same bytes, soft breaks and all.
 */

/** nodemailer's transfer encoding and encoded bytes for `body` as a part of type `contentType`. */
async function nodemailers(
  body: string,
  contentType: string,
): Promise<{ transferEncoding: string; encoded: Buffer }> {
  const part = new MimeNode("multipart/alternative").createChild(contentType);
  part.setContent(body);
  const transferEncoding = String(part.getTransferEncoding());
  if (transferEncoding !== "quoted-printable") return { transferEncoding, encoded: Buffer.from(body) };
  const encoder = new QpEncoder({ binary: false });
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    encoder.on("data", (chunk: Buffer) => chunks.push(chunk));
    encoder.on("end", resolve);
    encoder.on("error", reject);
  });
  const source = new PassThrough();
  source.pipe(encoder);
  source.end(Buffer.from(body));
  await done;
  return { transferEncoding, encoded: Buffer.concat(chunks) };
}

const PLACEHOLDER = (slot: number) => String.fromCharCode(0xe000 + slot);

/** The template of `pieces` (strings, and numbers for slots), filled with `values`, against nodemailer. */
async function compare(
  pieces: (string | number)[],
  values: string[],
  contentType = "text/html; charset=utf-8",
) {
  const parts: string[] = [""];
  const slots: number[] = [];
  let placeholders = "";
  let filled = "";
  for (const piece of pieces) {
    if (typeof piece === "number") {
      slots.push(piece);
      parts.push("");
      placeholders += PLACEHOLDER(piece).repeat((values[piece] as string).length);
      filled += values[piece];
    } else {
      parts[parts.length - 1] += piece;
      placeholders += piece;
      filled += piece;
    }
  }
  const template = EncodedTemplate.of(parts, slots, placeholders);
  const ours = template?.fill(values) ?? null;
  return { ours, theirs: await nodemailers(filled, contentType), template };
}

/** A seeded generator, so a failure can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const FIXED = [
  "word",
  " ",
  "  ",
  ".",
  ",",
  "!",
  "?",
  "\n",
  "\n\n",
  "=",
  "é",
  "\u2013",
  "\u200c",
  "\u00a0",
  "😀",
  '<p style="a:b">',
  "x".repeat(90),
  "\t",
  " \n",
  "==",
  "3D",
];
const VALUE = ["a", "Z", "9", ".", "=", "@", "-", "/", "?", "%", "(", ")", ",", "~", "+", ":", "_"];

describe("EncodedTemplate", () => {
  it("fills in what nodemailer encodes, for many bodies and values", async () => {
    const next = random(33);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
    let proven = 0;
    for (let round = 0; round < 1500; round++) {
      const slotCount = Math.floor(next() * 4);
      const values = Array.from({ length: slotCount }, () => {
        const length = 1 + Math.floor(next() * (next() < 0.2 ? 120 : 30));
        let value = "";
        while (value.length < length)
          value += next() < 0.1 && value && !value.endsWith(" ") ? " " : pick(VALUE);
        return value.trimEnd();
      });
      const pieces: (string | number)[] = [];
      const length = 1 + Math.floor(next() * 60);
      for (let index = 0; index < length; index++) {
        pieces.push(slotCount > 0 && next() < 0.12 ? Math.floor(next() * slotCount) : pick(FIXED));
      }
      const { ours, theirs } = await compare(
        pieces,
        values,
        next() < 0.5 ? "text/html; charset=utf-8" : "text/plain; charset=utf-8",
      );
      if (ours === null) continue;
      proven++;
      expect({ pieces, values, ...ours }).toEqual({ pieces, values, ...theirs });
    }
    expect(proven).toBeGreaterThan(1000);
  }, 60_000);

  it("fills one template in for many messages, the kept lines reused from wherever a line starts", async () => {
    const prose = "Thank you. Your reference is ";
    const pieces = [
      `<p>${prose.repeat(6)}`,
      0,
      `: quote it. ${"Wörds, and more words. ".repeat(12)}`,
      1,
      "</p>",
    ];
    const next = random(7);
    const valuesOf = () =>
      [19, 23].map((length) => {
        let value = "a";
        while (value.length < length) value += next() < 0.15 ? "." : next() < 0.1 ? "=" : "a";
        return value;
      });
    // Built once, for values of these lengths, as a template is per shape.
    const { template } = await compare(pieces, valuesOf());
    for (let round = 0; round < 300; round++) {
      const values = valuesOf();
      const { theirs } = await compare(pieces, values);
      expect(template?.fill(values)).toEqual(theirs);
    }
  });

  it("writes plain short lines as they are (7bit), and lines over 76 characters quoted-printable", async () => {
    const short = await compare(
      ["Hello ", 0, ",\nthanks."],
      ["ada@example.com"],
      "text/plain; charset=utf-8",
    );
    expect(short.ours).toEqual({
      transferEncoding: "7bit",
      encoded: Buffer.from("Hello ada@example.com,\nthanks."),
    });
    expect(short.ours).toEqual(short.theirs);
    const long = await compare(["Hello ", 0, ",\nthanks."], ["a".repeat(80)], "text/plain; charset=utf-8");
    expect(long.ours?.transferEncoding).toBe("quoted-printable");
    expect(long.ours).toEqual(long.theirs);
  });

  it("leaves to nodemailer what it cannot prove the same", async () => {
    // A value ending in whitespace, or not ASCII: refused for that message.
    expect((await compare(["a ", 0, "\nb é"], ["x "])).ours).toBeNull();
    expect((await compare(["a ", 0, "\nb é"], ["é"])).ours).toBeNull();
    expect((await compare(["a ", 0, "\nb é"], ["x"])).ours).not.toBeNull();
    // A body ending in whitespace, or one where the values could tip quoted-printable to base64.
    expect((await compare(["é", 0, " "], ["x"])).template).toBeNull();
    expect((await compare(["ééé a", 0], ["x"])).template).toBeNull();
  });
});
