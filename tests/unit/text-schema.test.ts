import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  ATTACHMENT_ACCEPT,
  BRIEF_FIELDS,
  BRIEF_FORM_ORDER,
  briefSchema,
  checkAttachmentChoice,
  MAX_ATTACHMENT_BYTES,
} from "@/lib/schemas/brief";
import { codePoints, email, fieldMessages, optionalText, text } from "@/lib/schemas/text";

/**
 * The text rules every form shares, each message and each boundary on its own (the brief's and
 * newsletter's fields through them: brief-schema.test.ts, newsletter-schema.test.ts).
 */

// The schemas are made inside the tests: nothing of lib/schemas/text.ts runs while the tests are
// collected (Stryker cannot switch a mutant on for code that runs then; see docs/development.md).

/** The one message a value gets, or `null` when it passes. */
function messageOf(schema: z.ZodType, value: unknown): string | null {
  const result = schema.safeParse(value);
  if (result.success) return null;
  expect(result.error.issues).toHaveLength(1);
  return result.error.issues[0]?.message ?? "";
}

describe("codePoints", () => {
  it.each([
    ["", 0],
    ["abc", 3],
    ["é", 1],
    ["🎨", 1],
    ["a🎨b🖌️", 5], // 🖌️ is U+1F58C and the variation selector U+FE0F
    ["\ud83c", 1], // a lone high surrogate is one unit, counted once
    ["\udfa8", 1], // a lone low surrogate
    ["\ud83ca", 2], // a high surrogate followed by no low one
    ["\ud83c\ud83c\udfa8", 2], // a lone high surrogate, then a pair
    ["a\ud7ff\ue000", 3], // just outside the surrogate ranges
    ["\udbff\udfff", 1], // the last pair
    ["\ud800\udc00", 1], // the first pair
    ["\ud800\udbff", 2], // two high surrogates
    ["\ud800\ue000", 2], // a high surrogate and no low one
    ["a\udc00", 2], // a low surrogate after no high one
    ["\udc00\udc00", 2], // two low surrogates
    ["\ue000\udc00", 2], // a low surrogate after a unit above the high ones
  ])("%j is %i code point(s)", (value, expected) => {
    expect(codePoints(value)).toBe(expected);
  });
});

describe("the module as it loads", () => {
  /** lib/schemas/text.ts and zod loaded afresh, with or without a `window`. */
  async function load(window: boolean) {
    const global = globalThis as { window?: unknown };
    if (window) global.window = {};
    vi.resetModules();
    try {
      const fresh = await import("zod");
      fresh.z.config({ jitless: false });
      return { zod: fresh.z, schemas: await import("@/lib/schemas/text") };
    } finally {
      delete global.window;
      vi.resetModules();
    }
  }

  it("in the browser, zod is told not to probe for eval (the site's CSP allows none); on the server not", async () => {
    expect((await load(true)).zod.config().jitless).toBe(true);
    expect((await load(false)).zod.config().jitless).toBe(false);
  });

  it("its patterns and schemas, as built at load", async () => {
    const { schemas } = await load(false);
    const line = schemas.text({ label: "Name", max: 9 });
    expect(line.safeParse("a\u0001b").error?.issues[0]?.message).toBe(
      "Name must be a single line without control characters.",
    );
    expect(line.safeParse("ab").success).toBe(true);
    const lines = schemas.text({ label: "Notes", max: 9, multiline: true });
    expect(lines.safeParse("a\u0001b").error?.issues[0]?.message).toBe("Notes contains control characters.");
    expect(lines.safeParse("a\nb").success).toBe(true);
    expect(schemas.email.safeParse(undefined).error?.issues[0]?.message).toBe("Email is required.");
    expect(schemas.email.meta()).toEqual({
      format: "email",
      minLength: 1,
      maxLength: 254,
      description: "Trimmed first, then a valid address of at most 254 characters.",
    });
  });
});

describe("text", () => {
  const name = () => text({ label: "Name", min: 2, max: 5 });

  it.each<[string, unknown, string | null]>([
    ["absent", undefined, "Name is required."],
    ["not a string", 42, "Name is required."],
    ["empty", "", "Name is required."],
    ["only spaces", "   ", "Name is required."],
    ["one character", "a", "Name must be at least 2 characters."],
    ["one emoji", "🎨", "Name must be at least 2 characters."],
    ["two characters", "ab", null],
    ["five characters", "abcde", null],
    ["five emoji", "🎨🎨🎨🎨🎨", null],
    ["six characters", "abcdef", "Name must be at most 5 characters."],
    ["a tab", "a\tb", "Name must be a single line without control characters."],
    ["a line feed", "a\nb", "Name must be a single line without control characters."],
    ["DEL", "a\u007fb", "Name must be a single line without control characters."],
    ["a C1 control", "a\u0085b", "Name must be a single line without control characters."],
    ["the last C1 control", "a\u009fb", "Name must be a single line without control characters."],
    ["NBSP (no control)", "a\u00a0b", null],
    ["bidi control U+202A", "a\u202ab", "Name must be a single line without control characters."],
    ["bidi control U+202B", "a\u202bb", "Name must be a single line without control characters."],
    ["bidi control U+202C", "a\u202cb", "Name must be a single line without control characters."],
    ["bidi control U+202D", "a\u202db", "Name must be a single line without control characters."],
    ["bidi control U+202E", "a\u202eb", "Name must be a single line without control characters."],
    ["bidi control U+2066", "a\u2066b", "Name must be a single line without control characters."],
    ["bidi control U+2067", "a\u2067b", "Name must be a single line without control characters."],
    ["bidi control U+2068", "a\u2068b", "Name must be a single line without control characters."],
    ["bidi control U+2069", "a\u2069b", "Name must be a single line without control characters."],
    ["bidi control U+200E", "a\u200eb", "Name must be a single line without control characters."],
    ["bidi control U+200F", "a\u200fb", "Name must be a single line without control characters."],
    ["bidi control U+061C", "a\u061cb", "Name must be a single line without control characters."],
    ["a zero-width space (not a bidi control)", "a\u200bb", null],
  ])("%s: %j", (_label, value, expected) => {
    expect(messageOf(name(), value)).toBe(expected);
  });

  it("without a minimum, an empty value passes", () => {
    expect(messageOf(text({ label: "Role", max: 3 }), "  ")).toBeNull();
    expect(messageOf(text({ label: "Role", max: 3 }), "abcd")).toBe("Role must be at most 3 characters.");
  });

  const notes = () => text({ label: "Notes", min: 1, max: 20, multiline: true });

  it.each<[string, string, string | null]>([
    ["tabs and line breaks", "a\tb\r\nc\nd", null],
    ["a NUL", "a\u0000b", "Notes contains control characters."],
    ["a backspace", "a\u0008b", "Notes contains control characters."],
    ["a vertical tab", "a\u000bb", "Notes contains control characters."],
    ["a form feed", "a\u000cb", "Notes contains control characters."],
    ["a shift out", "a\u000eb", "Notes contains control characters."],
    ["a unit separator", "a\u001fb", "Notes contains control characters."],
    ["DEL", "a\u007fb", "Notes contains control characters."],
    ["a C1 control", "a\u0090b", "Notes contains control characters."],
    ["a bidi override (kept, shown visibly wherever it is read)", "a\u202eb\u2066c", null],
    ["only spaces", "  ", "Notes is required."],
  ])("multiline, %s", (_label, value, expected) => {
    expect(messageOf(notes(), value)).toBe(expected);
  });

  it("gives back the value trimmed", () => {
    expect(name().parse("  ab \n")).toBe("ab");
  });

  it("describes its rules for the API document", () => {
    expect(name().meta()).toEqual({
      minLength: 2,
      maxLength: 5,
      description:
        "Trimmed first, then 2 to 5 characters (Unicode code points); one line, no control characters.",
    });
    expect(text({ label: "Role", max: 3 }).meta()).toEqual({
      maxLength: 3,
      description:
        "Trimmed first, then at most 3 characters (Unicode code points); one line, no control characters.",
    });
    expect(notes().meta()?.description).toBe(
      "Trimmed first, then 1 to 20 characters (Unicode code points); line breaks and tabs allowed, no other control characters.",
    );
  });
});

describe("optionalText", () => {
  const company = () => z.object({ company: optionalText({ label: "Company", max: 5 }) });

  it.each<[string, unknown, unknown]>([
    ["absent", {}, {}],
    ["empty", { company: "" }, {}],
    ["only spaces", { company: "  \t " }, {}],
    ["a value, trimmed", { company: " Acme " }, { company: "Acme" }],
  ])("%s", (_label, input, expected) => {
    expect(company().parse(input)).toEqual(expected);
  });

  it("checks a given value by the text rules", () => {
    const result = company().safeParse({ company: "Acme Inc" });
    expect(result.success).toBe(false);
    expect(fieldMessages(result.error!)).toEqual({ company: "Company must be at most 5 characters." });
    expect(fieldMessages(company().safeParse({ company: 7 }).error!)).toEqual({
      company: "Company is required.",
    });
  });

  it("says it is optional in the API document", () => {
    expect(z.toJSONSchema(company(), { io: "input" }).properties?.company).toEqual({
      type: "string",
      maxLength: 5,
      description:
        "Optional: empty counts as absent. Trimmed first, then at most 5 characters (Unicode code points); one line, no control characters.",
    });
  });
});

describe("email", () => {
  it.each<[string, unknown, string | null]>([
    ["absent", undefined, "Email is required."],
    ["empty", "", "Email is required."],
    ["only spaces", "  ", "Email is required."],
    ["invalid", "name@", "Enter a valid email address, like name@example.com."],
    ["254 characters", `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`, null],
    [
      "255 characters",
      `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(62)}`,
      "Email must be at most 254 characters.",
    ],
  ])("%s", (_label, value, expected) => {
    expect(messageOf(email, value)).toBe(expected);
  });

  it("gives back the address trimmed", () => {
    expect(email.parse(" name@example.com ")).toBe("name@example.com");
  });
});

describe("fieldMessages", () => {
  it("keeps each field's first message, and names an issue without a path `_`", () => {
    const schema = z.object({ a: z.string().min(3, "first").max(1, "second") }).refine(() => false, "whole");
    const result = schema.safeParse({ a: "ab" });
    expect(fieldMessages(result.error!)).toEqual({ a: "first", _: "whole" });
    expect(fieldMessages(schema.safeParse({ a: "abc" }).error!)).toEqual({ a: "second", _: "whole" });
    expect(fieldMessages(z.string().safeParse(1).error!)).toEqual({
      _: "Invalid input: expected string, received number",
    });
  });
});

describe("the brief's choices and field order", () => {
  it.each([
    ["projectType", "Choose the kind of project."],
    ["budget", "Choose a budget range."],
    ["timeline", "Choose a timeline."],
    ["consent", "Please agree to be contacted about your brief."],
  ] as const)("%s refused: %j", (field, message) => {
    const result = briefSchema.shape[field].safeParse("nonsense");
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(message);
  });

  it("describes each choice with its labels", () => {
    expect(briefSchema.shape.timeline.meta()?.description).toBe(
      "One of the form's options: `asap` (As soon as possible), `1-3-months` (1-3 months), `3-6-months` (3-6 months), `6-plus-months` (6+ months), `exploring` (Just exploring).",
    );
  });

  it("lists the schema's fields, and the form's with the file, in form order", () => {
    expect(BRIEF_FIELDS).toEqual([
      "name",
      "email",
      "company",
      "role",
      "projectType",
      "budget",
      "timeline",
      "description",
      "consent",
    ]);
    expect(BRIEF_FORM_ORDER).toEqual([...BRIEF_FIELDS.slice(0, 8), "brief", "consent"]);
  });
});

describe("checkAttachmentChoice", () => {
  it.each<[string, { name: string; size: number }, string | null]>([
    ["a PDF of 10 MiB exactly", { name: "brief.pdf", size: MAX_ATTACHMENT_BYTES }, null],
    [
      "one byte over 10 MiB",
      { name: "brief.pdf", size: MAX_ATTACHMENT_BYTES + 1 },
      "The file is larger than 10 MB. Attach a smaller one.",
    ],
    ["an empty file", { name: "brief.pdf", size: 0 }, "The file is empty."],
    ["one byte", { name: "notes.txt", size: 1 }, null],
    ["an upper-case extension", { name: "PHOTO.JPEG", size: 10 }, null],
    ["a .md", { name: "a.b.md", size: 10 }, null],
    ["a .docx", { name: "brief.docx", size: 10 }, null],
    ["a .png", { name: "x.png", size: 10 }, null],
    ["a .jpg", { name: "x.jpg", size: 10 }, null],
    ["a .gif", { name: "x.gif", size: 10 }, "Attach a PDF, DOCX, TXT, MD, PNG or JPG file."],
    ["no extension", { name: "pdf", size: 10 }, "Attach a PDF, DOCX, TXT, MD, PNG or JPG file."],
    [
      "an extension not at the end",
      { name: "x.pdf.exe", size: 10 },
      "Attach a PDF, DOCX, TXT, MD, PNG or JPG file.",
    ],
    ["a dot alone", { name: "x.", size: 10 }, "Attach a PDF, DOCX, TXT, MD, PNG or JPG file."],
    [
      "an extension with a space after",
      { name: "x.pdf ", size: 10 },
      "Attach a PDF, DOCX, TXT, MD, PNG or JPG file.",
    ],
    ["the whole accept list as a name", { name: ATTACHMENT_ACCEPT, size: 10 }, null],
  ])("%s", (_label, file, expected) => {
    expect(checkAttachmentChoice(file)).toBe(expected);
  });

  it("10 MiB is 10 × 1024 × 1024 bytes", () => {
    expect(MAX_ATTACHMENT_BYTES).toBe(10_485_760);
  });
});
