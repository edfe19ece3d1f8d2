import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { expiresIn, InvalidLinkError, type LinkRefusal, LinkSigner } from "@/lib/links";

const SECRET = "0123456789abcdef0123456789abcdef";
const signer = new LinkSigner(SECRET);
const NOW = new Date("2026-03-01T10:00:00.000Z");
const SUBJECT = "a".repeat(64);

function refusal(token: string, action = "newsletter.confirm", now = NOW): LinkRefusal | null {
  try {
    signer.verify(token, action, now);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidLinkError);
    return (error as InvalidLinkError).reason;
  }
}

const b64 = (value: string | Buffer) => Buffer.from(value).toString("base64url");

describe("LinkSigner", () => {
  it("makes base64url(payload).base64url(HMAC-SHA256(secret, payload)), checkable by anyone with the secret", () => {
    const token = signer.sign({ act: "newsletter.confirm", sub: SUBJECT, exp: 1_800_000_000 });
    const [payload, mac] = token.split(".");
    const json = Buffer.from(payload ?? "", "base64url").toString("utf8");
    expect(JSON.parse(json)).toEqual({ act: "newsletter.confirm", sub: SUBJECT, exp: 1_800_000_000 });
    expect(mac).toBe(createHmac("sha256", SECRET).update(json).digest("base64url"));
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  });

  it("gives back the payload of a token it made, for its action, until it expires", () => {
    const exp = expiresIn(7 * 86_400_000, NOW);
    const token = signer.sign({ act: "newsletter.confirm", sub: SUBJECT, exp });
    expect(signer.verify(token, "newsletter.confirm", NOW)).toEqual({
      act: "newsletter.confirm",
      sub: SUBJECT,
      exp,
    });
    expect(refusal(token, "newsletter.confirm", new Date((exp - 1) * 1000))).toBeNull();
    expect(refusal(token, "newsletter.confirm", new Date(exp * 1000))).toBe("expired");
  });

  it("a token without exp never expires", () => {
    const token = signer.sign({ act: "newsletter.unsubscribe", sub: SUBJECT });
    expect(refusal(token, "newsletter.unsubscribe", new Date("2099-01-01T00:00:00Z"))).toBeNull();
  });

  it("keeps jti, for links usable once", () => {
    const token = signer.sign({ act: "ops.sign-in", sub: SUBJECT, exp: expiresIn(900_000, NOW), jti: "x1" });
    expect(signer.verify(token, "ops.sign-in", NOW).jti).toBe("x1");
  });

  it("refuses a token for another action", () => {
    const token = signer.sign({ act: "newsletter.unsubscribe", sub: SUBJECT });
    expect(refusal(token, "newsletter.confirm")).toBe("wrong-action");
  });

  it("refuses a token signed with another secret, and says nothing more about it", () => {
    const other = new LinkSigner(`${SECRET}x`);
    const token = other.sign({ act: "newsletter.confirm", sub: SUBJECT, exp: 1 });
    // Expired and signed elsewhere: the signature is what is reported.
    expect(refusal(token)).toBe("forged");
  });

  const good = signer.sign({ act: "newsletter.confirm", sub: SUBJECT, exp: expiresIn(86_400_000, NOW) });
  const [goodPayload = "", goodMac = ""] = good.split(".");
  const flip = (text: string, index: number) =>
    text.slice(0, index) + (text[index] === "A" ? "B" : "A") + text.slice(index + 1);

  it.each<[string, string, LinkRefusal]>([
    ["a changed payload character", `${flip(goodPayload, 5)}.${goodMac}`, "forged"],
    ["a changed signature character", `${goodPayload}.${flip(goodMac, 3)}`, "forged"],
    [
      "another subject under the old signature",
      `${b64(JSON.stringify({ act: "newsletter.confirm", sub: "b".repeat(64), exp: 1_900_000_000 }))}.${goodMac}`,
      "forged",
    ],
    ["no signature", goodPayload, "malformed"],
    ["an empty signature", `${goodPayload}.`, "malformed"],
    ["a third part", `${good}.x`, "malformed"],
    ["a truncated signature", `${goodPayload}.${goodMac.slice(0, -2)}`, "malformed"],
    ["a signature with padding", `${goodPayload}.${goodMac}=`, "malformed"],
    ["a signature in standard base64", `${goodPayload}.${goodMac.replace(/[-_]/g, "+")}x`, "malformed"],
    [
      "a non-canonical last character",
      `${goodPayload}.${goodMac.slice(0, -1)}${String.fromCharCode(goodMac.charCodeAt(42) ^ 1)}`,
      "malformed",
    ],
    ["the empty string", "", "malformed"],
    ["spaces", `${goodPayload} .${goodMac}`, "malformed"],
    ["a very long token", `${"A".repeat(2_000)}.${goodMac}`, "malformed"],
  ])("refuses %s", (_label, token, reason) => {
    expect(refusal(token)).toBe(reason);
  });

  it("refuses an authentic payload that is not the expected shape", () => {
    const mac = (json: string) => createHmac("sha256", SECRET).update(json).digest("base64url");
    for (const json of [
      "[]",
      "null",
      '{"act":"newsletter.confirm"}',
      '{"act":"newsletter.confirm","sub":1}',
      "{not json",
    ]) {
      expect(refusal(`${b64(json)}.${mac(json)}`)).toBe("malformed");
    }
    const stringExpiry = JSON.stringify({ act: "newsletter.confirm", sub: SUBJECT, exp: "never" });
    expect(refusal(`${b64(stringExpiry)}.${mac(stringExpiry)}`)).toBe("malformed");
  });
});
