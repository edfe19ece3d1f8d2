import { describe, expect, it } from "vitest";
import { asciiJson } from "@/lib/ops/index-document";

describe("asciiJson: the indexes' JSON, in ASCII alone", () => {
  it.each([
    ["accents", { name: "Zoë Müller", company: "Bäckerei" }],
    ["a delivery line", { delivery: "webhook ✓ email ✗ slack ↻" }],
    ["an emoji (a surrogate pair)", { description: "launch 🚀 soon" }],
    ["other scripts", { name: "東京 · Αθήνα · القاهرة" }],
    ["a lone surrogate", { text: "broken \ud83d here" }],
    ["controls and DEL", { text: "tab\tline\nnul\u0000del\u007f" }],
  ])("%s: every byte ASCII, and JSON.parse gives back the same value", (_name, value) => {
    const text = asciiJson(value);
    expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
    expect(JSON.parse(text)).toEqual(value);
  });

  it("writes plain ASCII as JSON.stringify does", () => {
    const value = { reference: "224S-ECHG-ZWAR-WEZ4", n: 3, nothing: null, list: ["a", "b"] };
    expect(asciiJson(value)).toBe(JSON.stringify(value));
  });
});
