import { describe, expect, it } from "vitest";
import { newReference, parseReference, REFERENCE_ALPHABET, REFERENCE_PATTERN } from "@/lib/reference";

const SAMPLE = Array.from({ length: 2000 }, () => newReference());

describe("REFERENCE_ALPHABET", () => {
  it("has no repeated symbol", () => {
    expect(new Set(REFERENCE_ALPHABET).size).toBe(REFERENCE_ALPHABET.length);
  });

  it("gives at least 60 random bits over 16 symbols", () => {
    expect(16 * Math.log2(new Set(REFERENCE_ALPHABET).size)).toBeGreaterThanOrEqual(60);
  });

  it.each([["0"], ["O"], ["1"], ["I"], ["L"], ["U"]])("leaves out the confusable %s", (symbol) => {
    expect(REFERENCE_ALPHABET).not.toContain(symbol);
    expect(REFERENCE_ALPHABET).not.toContain(symbol.toLowerCase());
  });

  it("holds only upper-case letters and digits", () => {
    expect(REFERENCE_ALPHABET).toMatch(/^[A-Z2-9]+$/);
  });
});

describe("newReference", () => {
  it("gives 2000 distinct references", () => {
    expect(new Set(SAMPLE).size).toBe(SAMPLE.length);
  });

  it.each<[string, (reference: string) => boolean]>([
    ["matches REFERENCE_PATTERN", (reference) => REFERENCE_PATTERN.test(reference)],
    ["is at most 32 characters", (reference) => reference.length <= 32],
    ["is URL-safe", (reference) => encodeURIComponent(reference) === reference],
    ["has no lower case", (reference) => reference === reference.toUpperCase()],
    ["has none of 0 O 1 I L U", (reference) => !/[0O1ILU]/i.test(reference)],
    ["has 16 symbols from the alphabet", (reference) => [...reference.replaceAll("-", "")].length === 16],
    [
      "uses only alphabet symbols and dashes",
      (reference) => [...reference].every((symbol) => symbol === "-" || REFERENCE_ALPHABET.includes(symbol)),
    ],
    ["parses back to itself", (reference) => parseReference(reference) === reference],
  ])("every reference %s", (_label, holds) => {
    const failing = SAMPLE.filter((reference) => !holds(reference));
    expect(failing).toEqual([]);
  });

  it("uses every symbol of the alphabet, at every position, roughly evenly", () => {
    const symbols = SAMPLE.map((reference) => reference.replaceAll("-", ""));
    const counts = new Map<string, number>();
    for (const reference of symbols)
      for (const symbol of reference) counts.set(symbol, (counts.get(symbol) ?? 0) + 1);

    const expected = (SAMPLE.length * 16) / REFERENCE_ALPHABET.length;
    for (const symbol of REFERENCE_ALPHABET) {
      // ~1067 expected, standard deviation ~32: 30% is about 10 deviations.
      expect(counts.get(symbol) ?? 0, symbol).toBeGreaterThan(expected * 0.7);
      expect(counts.get(symbol) ?? 0, symbol).toBeLessThan(expected * 1.3);
    }
    for (let position = 0; position < 16; position++) {
      const seen = new Set(symbols.map((reference) => reference[position]));
      expect(seen.size, `position ${position}`).toBe(REFERENCE_ALPHABET.length);
    }
  });
});

describe("parseReference", () => {
  it.each([
    ["K7QM-3XD9-PTWA-84HC", "K7QM-3XD9-PTWA-84HC"],
    ["k7qm-3xd9-ptwa-84hc", "K7QM-3XD9-PTWA-84HC"],
    ["K7QM 3XD9 PTWA 84HC", "K7QM-3XD9-PTWA-84HC"],
    ["k7qm3xd9ptwa84hc", "K7QM-3XD9-PTWA-84HC"],
    ["  k7qm 3xd9-PTWA84hc \n", "K7QM-3XD9-PTWA-84HC"],
    ["K7-QM3X-D9PT-WA84-HC", "K7QM-3XD9-PTWA-84HC"],
  ])("%j -> %s", (input, expected) => {
    expect(parseReference(input)).toBe(expected);
  });

  it.each(SAMPLE.slice(0, 50).map((reference) => [reference]))(
    "round-trips %s typed in lower case with spaces",
    (reference) => {
      expect(parseReference(reference.toLowerCase().replaceAll("-", " "))).toBe(reference);
    },
  );

  it.each([
    ["empty", ""],
    ["15 symbols", "K7QM-3XD9-PTWA-84H"],
    ["17 symbols", "K7QM-3XD9-PTWA-84HCA"],
    ["a zero", "K7QM-3XD9-PTWA-840C"],
    ["an O", "K7QM-3XD9-PTWA-84OC"],
    ["a one", "K7QM-3XD9-PTWA-841C"],
    ["an I", "K7QM-3XD9-PTWA-84IC"],
    ["an L", "K7QM-3XD9-PTWA-84LC"],
    ["a lower-case l", "K7QM-3XD9-PTWA-84lC"],
    ["a U", "K7QM-3XD9-PTWA-84UC"],
    ["an underscore", "K7QM_3XD9-PTWA-84HC"],
    ["a dot", "K7QM.3XD9.PTWA.84HC"],
    ["a non-ASCII letter", "K7QM-3XD9-PTWA-84HÇ"],
  ])("rejects %s", (_label, input) => {
    expect(parseReference(input)).toBeNull();
  });
});
