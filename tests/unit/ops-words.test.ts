import { describe, expect, it } from "vitest";
import { countOf } from "@/lib/format";
import { briefPageAfter } from "@/lib/ops-web/gate";
import { spamReasonText, verificationLabel } from "@/lib/ops/labels";

/** The inbox's words: counts, the human check, why spam was caught. */

describe("countOf", () => {
  it.each<[number, string, string | undefined, string]>([
    [0, "brief", undefined, "0 briefs"],
    [1, "brief", undefined, "1 brief"],
    [2, "brief", undefined, "2 briefs"],
    [1, "caught entry", "caught entries", "1 caught entry"],
    [12, "caught entry", "caught entries", "12 caught entries"],
  ])("%d %s -> %s", (count, singular, plural, expected) => {
    expect(countOf(count, singular, plural)).toBe(expected);
  });
});

describe("verificationLabel", () => {
  it.each([
    ["passed", "Passed the human check"],
    ["unavailable", "Could not be checked (the human check did not answer)"],
    ["off", "Not checked: human verification is off"],
  ] as const)("%s -> %s", (value, expected) => {
    expect(verificationLabel(value)).toBe(expected);
  });
});

describe("spamReasonText", () => {
  it.each<[Parameters<typeof spamReasonText>[0], string]>([
    [{ reason: "honeypot" }, "the honeypot"],
    [{ reason: "keyword", match: "casino" }, 'the keyword "casino"'],
    [{ reason: "keyword" }, "a keyword"],
    [{ reason: "domain", match: "spam.example" }, "the domain spam.example"],
    [{ reason: "domain" }, "a sender domain"],
  ])("%j -> %s", (spam, expected) => {
    expect(spamReasonText(spam)).toBe(expected);
  });
});

describe("briefPageAfter", () => {
  const after = (url: string) => briefPageAfter("K7QM-3XD9-PTWA-84HC", new Request(url, { method: "POST" }));

  it.each([
    ["http://x/api/ops/briefs/K7QM-3XD9-PTWA-84HC/status", "/inbox/K7QM-3XD9-PTWA-84HC"],
    [
      "http://x/api/ops/briefs/K7QM-3XD9-PTWA-84HC/status?list=q%3Dnavy%26status%3Dnew%26page%3D2",
      "/inbox/K7QM-3XD9-PTWA-84HC?status=new&q=navy&page=2",
    ],
    // Only the list's own filters, cleaned: nothing else rides along to the page.
    [
      "http://x/api/ops/briefs/K7QM-3XD9-PTWA-84HC/notes?list=status%3Dbogus%26from%3D2026-13-40%26next%3D%2F%2Fevil",
      "/inbox/K7QM-3XD9-PTWA-84HC",
    ],
  ])("%s -> %s", (url, expected) => {
    expect(after(url)).toBe(expected);
  });
});
