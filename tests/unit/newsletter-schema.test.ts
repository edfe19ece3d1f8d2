import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/http/errors";
import { NEWSLETTER_BODY_LIMIT, parseSubscription } from "@/lib/newsletter";
import { NEWSLETTER_TOPICS, newsletterSchema } from "@/lib/schemas/newsletter";
import { fieldMessages } from "@/lib/schemas/text";

/** The `fields` map for an input, or `{}` when it is valid. */
function fieldsOf(input: unknown): Record<string, string> {
  const result = newsletterSchema.safeParse(input);
  return result.success ? {} : fieldMessages(result.error);
}

// 64 + 1 + 61 + 1 + 61 + 1 + 61 + 4 = 254
const email254 = `${"a".repeat(64)}@${"b".repeat(61)}.${"c".repeat(61)}.${"d".repeat(61)}.com`;
const email255 = `${"a".repeat(64)}@${"b".repeat(61)}.${"c".repeat(61)}.${"d".repeat(62)}.com`;

describe("the topic list", () => {
  it("is SPEC.md's list, in its order", () => {
    expect(NEWSLETTER_TOPICS).toEqual([
      "AI",
      "Engineering",
      "Research",
      "Software",
      "Infrastructure",
      "Emerging technology",
      "Quantum",
      "Gaming technology",
    ]);
  });
});

describe("topics", () => {
  it.each(NEWSLETTER_TOPICS.map((topic) => [topic]))("accepts %j on its own", (topic) => {
    const result = newsletterSchema.safeParse({ email: "ada@example.com", topics: [topic] });
    expect(result.success).toBe(true);
    expect(result.data?.topics).toEqual([topic]);
  });

  it("accepts every topic at once, keeping the order given", () => {
    const topics = [...NEWSLETTER_TOPICS].reverse();
    expect(newsletterSchema.parse({ email: "ada@example.com", topics }).topics).toEqual(topics);
  });

  it.each([
    ["absent", undefined],
    ["an empty list", []],
  ])("reads %s as no topics", (_label, topics) => {
    expect(newsletterSchema.parse({ email: "ada@example.com", topics }).topics).toEqual([]);
  });

  it.each([
    ["wrong case", ["ai"], /"ai" is not a topic/],
    ["wrong case, longer", ["emerging Technology"], /not a topic/],
    ["padded", [" AI"], /not a topic/],
    ["unknown", ["Cooking"], /"Cooking" is not a topic/],
    ["one bad among good", ["AI", "Blockchain", "Quantum"], /"Blockchain"/],
    ["empty string", [""], /not a topic/],
    ["a number", [1], /must be one of/],
    ["null item", [null], /must be one of/],
    ["nested list", [["AI"]], /must be one of/],
    ["an object item", [{ name: "AI" }], /must be one of/],
    ["duplicates", ["AI", "AI"], /only once/],
    ["duplicates among others", ["Quantum", "AI", "Quantum"], /only once/],
    ["a string, not a list", "AI", /must be a list/],
    ["null", null, /must be a list/],
    ["an object", { AI: true }, /must be a list/],
    ["a number", 3, /must be a list/],
    ["true", true, /must be a list/],
  ])("refuses %s with one topics message", (_label, topics, message) => {
    const fields = fieldsOf({ email: "ada@example.com", topics });
    expect(Object.keys(fields)).toEqual(["topics"]);
    expect(fields.topics).toMatch(message);
  });

  it("names the allowed topics when refusing one", () => {
    expect(fieldsOf({ email: "ada@example.com", topics: ["ai"] }).topics).toContain(
      "AI, Engineering, Research, Software, Infrastructure, Emerging technology, Quantum, Gaming technology",
    );
  });

  it("clips a long unknown topic in the message", () => {
    const message = fieldsOf({ email: "ada@example.com", topics: ["x".repeat(5000)] }).topics ?? "";
    expect(message.length).toBeLessThan(300);
  });
});

describe("email", () => {
  it("the boundary addresses have the intended lengths", () => {
    expect(email254).toHaveLength(254);
    expect(email255).toHaveLength(255);
  });

  it.each([
    ["ada@example.com", "ada@example.com"],
    ["Ada@Example.com", "Ada@Example.com"],
    ["  ada@example.com\t\n", "ada@example.com"],
    ["first.last+news@sub.example.co.uk", "first.last+news@sub.example.co.uk"],
    [email254, email254],
    [`  ${email254}  `, email254],
  ])("%j is valid and kept as %j", (email, kept) => {
    const result = newsletterSchema.safeParse({ email });
    expect(result.success).toBe(true);
    expect(result.data).toEqual({ email: kept, topics: [] });
  });

  it.each([
    ["missing", {}],
    ["empty", { email: "" }],
    ["only spaces", { email: "   " }],
    ["255 characters", { email: email255 }],
    ["missing @", { email: "ada.example.com" }],
    ["two @", { email: "ada@@example.com" }],
    ["space inside", { email: "ada lovelace@example.com" }],
    ["no dot in domain", { email: "ada@localhost" }],
    ["a number", { email: 42 }],
    ["a list", { email: ["ada@example.com"] }],
    ["null", { email: null }],
  ])("refuses %s", (_label, input) => {
    const fields = fieldsOf(input);
    expect(Object.keys(fields)).toEqual(["email"]);
    expect(fields.email).toMatch(/\w.*\.$/);
  });
});

describe("the whole request", () => {
  it("reports email and topics at once", () => {
    expect(Object.keys(fieldsOf({ email: "nope", topics: ["nope"] })).sort()).toEqual(["email", "topics"]);
  });

  it("ignores keys it does not know", () => {
    const result = newsletterSchema.safeParse(
      JSON.parse(
        '{"email":"ada@example.com","topics":["AI"],"name":"Ada","consent":true,"__proto__":{"email":"x"}}',
      ),
    );
    expect(result.data).toEqual({ email: "ada@example.com", topics: ["AI"] });
  });
});

describe("parseSubscription (the JSON body)", () => {
  function failure(body: string): ApiError {
    try {
      parseSubscription(body);
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
    throw new Error(`${body} was accepted`);
  }

  it("parses a valid body, ignoring extra keys", () => {
    expect(parseSubscription('{"email":" Ada@Example.com ","topics":["AI"],"source":"footer"}')).toEqual({
      email: "Ada@Example.com",
      topics: ["AI"],
    });
  });

  it.each([
    ["empty", ""],
    ["not JSON", "email=ada@example.com"],
    ["truncated", '{"email":"ada@example.com"'],
    ["trailing comma", '{"email":"ada@example.com",}'],
    ["single quotes", "{'email':'ada@example.com'}"],
  ])("refuses a body that is not JSON (%s) with 400", (_label, body) => {
    const error = failure(body);
    expect(error.status).toBe(400);
    expect(error.code).toBe("malformed_body");
  });

  it.each([
    ["an array", '[{"email":"ada@example.com"}]'],
    ["a string", '"ada@example.com"'],
    ["a number", "42"],
    ["null", "null"],
    ["true", "true"],
  ])("refuses JSON that is not an object (%s) with 400", (_label, body) => {
    const error = failure(body);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/JSON object/);
  });

  it("refuses a valid object that breaks a rule with 422 and the fields", () => {
    const error = failure('{"email":"ada@example.com","topics":["ai"]}');
    expect(error.status).toBe(422);
    expect(error.fields).toEqual({ topics: expect.stringMatching(/"ai" is not a topic/) });
  });

  it("an empty object is a 422 for email", () => {
    expect(failure("{}").fields).toEqual({ email: "Email is required." });
  });

  it.each([
    ["a path and query", "/work?utm_source=x", "/work?utm_source=x"],
    ["500 characters", `/${"p".repeat(499)}`, `/${"p".repeat(499)}`],
    ["501 characters", `/${"p".repeat(500)}`, undefined],
    ["two lines", "/a\n/b", undefined],
    ["a line separator", "/a\u2028b", undefined],
    ["empty", "", undefined],
    ["not a string", 42, undefined],
  ])(
    "keeps `page` only when it keeps its rule (%s), never refusing the subscription",
    (_label, page, kept) => {
      const body = JSON.stringify({ email: "ada@example.com", page });
      expect(parseSubscription(body)).toEqual({
        email: "ada@example.com",
        topics: [],
        ...(kept === undefined ? {} : { page: kept }),
      });
    },
  );

  it("caps bodies at 16 KiB", () => {
    expect(NEWSLETTER_BODY_LIMIT).toBe(16 * 1024);
  });
});
