import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BUDGETS, briefSchema, PROJECT_TYPES, TIMELINES } from "@/lib/schemas/brief";
import { fieldMessages } from "@/lib/schemas/text";

const DESCRIPTION = "We need a customer portal that replaces our spreadsheet-based ordering process.";

const base = {
  name: "Ann Lee",
  email: "ann@example.com",
  company: "Acme Ltd",
  role: "CTO",
  projectType: "web-application",
  budget: "25k-50k",
  timeline: "1-3-months",
  description: DESCRIPTION,
  consent: "on",
};

type Input = Record<string, unknown>;

function parse(overrides: Input = {}) {
  return briefSchema.safeParse({ ...base, ...overrides });
}

function without(field: keyof typeof base): Input {
  const copy: Input = { ...base };
  delete copy[field];
  return copy;
}

/** The `fields` map for an input, or `{}` when it is valid. */
function fieldsOf(input: Input): Record<string, string> {
  const result = briefSchema.safeParse(input);
  return result.success ? {} : fieldMessages(result.error);
}

const EMOJI = "\u{1F600}"; // one code point, two UTF-16 units

describe("the valid base brief", () => {
  it("parses, trims nothing away and turns consent into true", () => {
    const result = parse();
    expect(result.success).toBe(true);
    expect(result.data).toEqual({ ...base, consent: true });
  });

  it("ignores fields that are not in the table", () => {
    const result = parse({ website: "", extra: "x", brief: "file" });
    expect(result.success).toBe(true);
    expect(Object.keys(result.data ?? {}).sort()).toEqual(Object.keys(base).sort());
  });
});

const UNITS = { ascii: "a", cjk: "李", emoji: EMOJI } as const;

/** A row: the field, a readable label, the value of `count` repetitions of one unit, and whether it passes. */
function row(
  field: "name" | "description" | "company" | "role",
  unit: keyof typeof UNITS,
  count: number,
  ok: boolean,
) {
  return [field, `${count} ${unit}`, UNITS[unit].repeat(count), ok] as const;
}

describe("length boundaries (code points, not UTF-16 units)", () => {
  it.each([
    row("name", "ascii", 1, false),
    row("name", "ascii", 2, true),
    row("name", "ascii", 120, true),
    row("name", "ascii", 121, false),
    row("name", "cjk", 1, false),
    row("name", "cjk", 2, true),
    row("name", "cjk", 120, true),
    row("name", "cjk", 121, false),
    row("name", "emoji", 1, false),
    row("name", "emoji", 2, true),
    row("name", "emoji", 120, true),
    row("name", "emoji", 121, false),
    row("description", "ascii", 29, false),
    row("description", "ascii", 30, true),
    row("description", "ascii", 6000, true),
    row("description", "ascii", 6001, false),
    row("description", "emoji", 29, false),
    row("description", "emoji", 30, true),
    row("description", "emoji", 6000, true),
    row("description", "emoji", 6001, false),
    row("company", "ascii", 1, true),
    row("company", "ascii", 160, true),
    row("company", "ascii", 161, false),
    row("company", "emoji", 160, true),
    row("company", "emoji", 161, false),
    row("role", "ascii", 1, true),
    row("role", "ascii", 120, true),
    row("role", "ascii", 121, false),
    row("role", "emoji", 120, true),
    row("role", "emoji", 121, false),
  ])("%s of %s code points -> valid: %s", (field, _label, value, ok) => {
    const result = parse({ [field]: value });
    expect(result.success).toBe(ok);
    if (ok) expect(result.data?.[field]).toBe(value);
    else expect(Object.keys(fieldMessages(result.error!))).toEqual([field]);
  });

  it('accepts the two-character CJK name "李小"', () => {
    expect(parse({ name: "李小" }).data?.name).toBe("李小");
  });
});

describe("trimming", () => {
  it.each([
    ["name", " Ann ", "Ann"],
    ["name", "  ab  ", "ab"],
    ["name", "\tAnn Lee\n", "Ann Lee"],
    ["company", "  Acme  ", "Acme"],
    ["role", " CTO ", "CTO"],
    ["email", "  ann@example.com  ", "ann@example.com"],
    ["description", `\n  ${DESCRIPTION}  \n`, DESCRIPTION],
  ] as const)("%s %j is stored as %j", (field, value, expected) => {
    const result = parse({ [field]: value });
    expect(result.success).toBe(true);
    expect(result.data?.[field]).toBe(expected);
  });

  it.each([
    ["name", "  a  "],
    ["name", "   "],
    ["name", ""],
    ["description", `   ${"a".repeat(29)}   `],
    ["name", ` ${"a".repeat(121)} `],
  ] as const)("%s %j is refused after trimming", (field, value) => {
    expect(Object.keys(fieldsOf({ ...base, [field]: value }))).toEqual([field]);
  });

  it("counts the length after trimming, so padding does not push a value over the maximum", () => {
    expect(parse({ name: `   ${"a".repeat(120)}   ` }).success).toBe(true);
    expect(parse({ company: ` ${"a".repeat(160)} ` }).success).toBe(true);
  });
});

describe("control characters", () => {
  const CONTROLS = [
    ["CR", "\r"],
    ["LF", "\n"],
    ["NUL", "\u0000"],
    ["TAB", "\t"],
    ["BEL", "\u0007"],
    ["ESC", "\u001b"],
    ["DEL", "\u007f"],
    ["NEL (U+0085)", "\u0085"],
  ] as const;

  describe.each(["name", "company", "role"] as const)("single-line field %s", (field) => {
    it.each(CONTROLS)("refuses %s inside the value", (_label, control) => {
      const fields = fieldsOf({ ...base, [field]: `Ann${control}Lee` });
      expect(Object.keys(fields)).toEqual([field]);
      expect(typeof fields[field]).toBe("string");
    });
  });

  it.each([
    ["LF", `First line of the brief.\nSecond line, with more detail.`],
    ["CRLF", `First line of the brief.\r\nSecond line, with more detail.`],
    ["TAB", `Items:\n\t- a portal\n\t- an admin area for our team`],
  ])("description allows %s", (_label, description) => {
    const result = parse({ description });
    expect(result.success).toBe(true);
    expect(result.data?.description).toBe(description);
  });

  it.each([
    ["NUL", "\u0000"],
    ["BEL", "\u0007"],
    ["VT", "\u000b"],
    ["FF", "\u000c"],
    ["ESC", "\u001b"],
    ["DEL", "\u007f"],
    ["NEL (U+0085)", "\u0085"],
    ["U+009F", "\u009f"],
  ])("description refuses %s", (_label, control) => {
    const fields = fieldsOf({ ...base, description: `${DESCRIPTION}${control}${DESCRIPTION}` });
    expect(Object.keys(fields)).toEqual(["description"]);
  });
});

describe("optional fields", () => {
  it.each([
    ["company", ""],
    ["company", "   "],
    ["role", ""],
    ["role", " \t "],
  ] as const)("%s %j counts as absent", (field, value) => {
    const result = parse({ [field]: value });
    expect(result.success).toBe(true);
    expect(result.data?.[field]).toBeUndefined();
  });

  it.each(["company", "role"] as const)("%s may be missing", (field) => {
    const result = briefSchema.safeParse(without(field));
    expect(result.success).toBe(true);
    expect(result.data?.[field]).toBeUndefined();
  });

  it.each(["name", "email", "projectType", "budget", "timeline", "description", "consent"] as const)(
    "%s is required",
    (field) => {
      const fields = fieldsOf(without(field));
      expect(Object.keys(fields)).toEqual([field]);
      expect(fields[field]).toMatch(/\S/);
    },
  );
});

// The wire values and labels, copied from CONTRACT.md ("Enumerations"), in the form's order.
const CONTRACT_ENUMS = {
  projectType: [
    ["web-application", "Web application"],
    ["mobile-application", "Mobile application"],
    ["ai-system", "AI system"],
    ["saas-platform", "SaaS platform"],
    ["data-platform", "Data platform"],
    ["integration", "Integration or automation"],
    ["other", "Something else"],
  ],
  budget: [
    ["under-25k", "Under $25k"],
    ["25k-50k", "$25k-$50k"],
    ["50k-100k", "$50k-$100k"],
    ["100k-250k", "$100k-$250k"],
    ["over-250k", "Over $250k"],
    ["undecided", "Not decided yet"],
  ],
  timeline: [
    ["asap", "As soon as possible"],
    ["1-3-months", "1-3 months"],
    ["3-6-months", "3-6 months"],
    ["6-plus-months", "6+ months"],
    ["exploring", "Just exploring"],
  ],
} as const;

describe("enumerations", () => {
  it.each([
    ["projectType", PROJECT_TYPES],
    ["budget", BUDGETS],
    ["timeline", TIMELINES],
  ] as const)("%s values and labels match CONTRACT.md exactly, in order", (field, options) => {
    expect(Object.entries(options)).toEqual(CONTRACT_ENUMS[field]);
  });

  const accepted = (Object.keys(CONTRACT_ENUMS) as (keyof typeof CONTRACT_ENUMS)[]).flatMap((field) =>
    CONTRACT_ENUMS[field].map(([value]) => [field, value] as const),
  );

  it.each(accepted)("%s accepts %j", (field, value) => {
    const result = parse({ [field]: value });
    expect(result.success).toBe(true);
    expect(result.data?.[field]).toBe(value);
  });

  it.each([
    ["projectType", "Web-Application"],
    ["projectType", "WEB-APPLICATION"],
    ["projectType", "Web application"],
    ["projectType", "web_application"],
    ["projectType", "mobile"],
    ["projectType", ""],
    ["budget", "Under-25k"],
    ["budget", "under 25k"],
    ["budget", "Not decided yet"],
    ["budget", "250k+"],
    ["budget", ""],
    ["timeline", "ASAP"],
    ["timeline", "Exploring"],
    ["timeline", "6+ months"],
    ["timeline", "tomorrow"],
    ["timeline", ""],
  ] as const)("%s refuses %j", (field, value) => {
    const fields = fieldsOf({ ...base, [field]: value });
    expect(Object.keys(fields)).toEqual([field]);
  });
});

describe("consent", () => {
  it('"on" becomes true', () => {
    expect(parse({ consent: "on" }).data?.consent).toBe(true);
  });

  it.each([["On"], ["ON"], ["true"], ["yes"], ["1"], [""], [" on "], [true]])("%j is refused", (consent) => {
    expect(Object.keys(fieldsOf({ ...base, consent }))).toEqual(["consent"]);
  });

  it("missing is refused", () => {
    expect(Object.keys(fieldsOf(without("consent")))).toEqual(["consent"]);
  });
});

describe("email", () => {
  // 64 + 1 + 61 + 1 + 61 + 1 + 61 + 4 = 254
  const email254 = `${"a".repeat(64)}@${"b".repeat(61)}.${"c".repeat(61)}.${"d".repeat(61)}.com`;
  const email255 = `${"a".repeat(64)}@${"b".repeat(61)}.${"c".repeat(61)}.${"d".repeat(62)}.com`;

  it("the boundary addresses have the intended lengths", () => {
    expect(email254).toHaveLength(254);
    expect(email255).toHaveLength(255);
  });

  it.each([
    ["ann@example.com", "ann@example.com"],
    ["first.last+tag@sub.example.co.uk", "first.last+tag@sub.example.co.uk"],
    ["o'brien@example.ie", "o'brien@example.ie"],
    ["Ann.Lee@Example.COM", "Ann.Lee@Example.COM"],
    ["  ann@example.com\t", "ann@example.com"],
    [email254, email254],
  ])("%j is valid and stored as %j", (email, stored) => {
    const result = parse({ email });
    expect(result.success).toBe(true);
    expect(result.data?.email).toBe(stored);
  });

  it.each([
    ["missing @", "ann.example.com"],
    ["nothing before @", "@example.com"],
    ["nothing after @", "ann@"],
    ["two @", "ann@@example.com"],
    ["space in local part", "ann lee@example.com"],
    ["space in domain", "ann@exa mple.com"],
    ["no dot in domain", "ann@localhost"],
    ["empty", ""],
    ["only spaces", "   "],
    ["255 characters", email255],
  ])("refuses %s", (_label, email) => {
    const fields = fieldsOf({ ...base, email });
    expect(Object.keys(fields)).toEqual(["email"]);
    expect(typeof fields.email).toBe("string");
  });
});

describe("bidirectional controls", () => {
  const controls = [
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200e",
    "\u200f",
    "\u061c",
  ];

  it.each(controls)("are refused in name, company and role, each field named (%j)", (control) => {
    const fields = fieldsOf({
      ...base,
      name: `Ann${control}Lee`,
      company: `${control}Acme`,
      role: `C${control}TO`,
    });
    expect(Object.keys(fields).sort()).toEqual(["company", "name", "role"]);
    expect(fields.name).toBe("Name must be a single line without control characters.");
  });

  it("are kept in the description", () => {
    const description = `${DESCRIPTION} \u202eexe.fdp\u202c and \u2067isolated\u2069.`;
    expect(parse({ description }).data?.description).toBe(description);
  });
});

describe("fieldMessages", () => {
  it("reports every invalid field at once, one string message each", () => {
    const fields = fieldsOf({
      name: "a",
      email: "not-an-address",
      company: "c".repeat(161),
      role: "r".repeat(121),
      projectType: "spaceship",
      budget: "lots",
      timeline: "yesterday",
      description: "too short",
      consent: "yes",
    });
    expect(Object.keys(fields).sort()).toEqual(
      [
        "name",
        "email",
        "company",
        "role",
        "projectType",
        "budget",
        "timeline",
        "description",
        "consent",
      ].sort(),
    );
    for (const message of Object.values(fields)) {
      expect(typeof message).toBe("string");
      expect(message.trim()).not.toBe("");
    }
  });

  it("reports every missing required field for an empty submission, and no optional one", () => {
    expect(Object.keys(fieldsOf({})).sort()).toEqual(
      ["budget", "consent", "description", "email", "name", "projectType", "timeline"].sort(),
    );
  });

  it("keeps the first message when a field has several issues", () => {
    const schema = z.object({ code: z.string().min(5, "too short").regex(/^\d+$/, "digits only") });
    const result = schema.safeParse({ code: "abc" });
    expect(result.success).toBe(false);
    expect(result.error!.issues).toHaveLength(2);
    expect(fieldMessages(result.error!)).toEqual({ code: "too short" });
  });

  it("reports values of the wrong type per field", () => {
    const fields = fieldsOf({ ...base, name: 42, email: ["x"], consent: true });
    expect(Object.keys(fields).sort()).toEqual(["consent", "email", "name"]);
    expect(Object.values(fields).every((message) => typeof message === "string")).toBe(true);
  });

  it.each([
    ["name", { name: "a" }, /at least 2/],
    ["name", { name: "a".repeat(121) }, /at most 120/],
    ["description", { description: "short" }, /at least 30/],
    ["company", { company: "a".repeat(161) }, /at most 160/],
  ])("the %s message states the rule (%j)", (field, overrides, pattern) => {
    expect(fieldsOf({ ...base, ...overrides })[field]).toMatch(pattern);
  });
});
