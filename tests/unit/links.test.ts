import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { expiresIn, InvalidLinkError, type LinkPurpose, type LinkRefusal, LinkSigner } from "@/lib/links";

const SECRET = "0123456789abcdef0123456789abcdef";
const SITE = "https://studio.example";
const signer = new LinkSigner(SECRET, SITE);
const NOW = new Date("2026-03-01T10:00:00.000Z");
const SUBJECT = "a".repeat(64);
const LATER = expiresIn(86_400_000, NOW);

function refusal(token: string, purpose: LinkPurpose = "confirm", now = NOW): LinkRefusal | null {
  try {
    signer.verify(token, purpose, now);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidLinkError);
    return (error as InvalidLinkError).reason;
  }
}

const b64 = (value: string | Buffer) => Buffer.from(value).toString("base64url");

/** The documented derivation, written out here rather than borrowed from the code under test. */
const purposeKey = (purpose: string, secret = SECRET) =>
  createHmac("sha256", secret).update(`studio-intake/link-token/v2/${purpose}`).digest();

/** A token over exactly `json`, signed with `key` (a derived key, or the raw secret of the old form). */
const signed = (json: string, key: Buffer | string) =>
  `${b64(json)}.${createHmac("sha256", key).update(json).digest("base64url")}`;

/** An unsubscribe link as emails sent before the site was in the token carry it. */
const legacy = (act: string, sub = SUBJECT, secret = SECRET) => signed(JSON.stringify({ act, sub }), secret);

describe("LinkSigner", () => {
  it("makes base64url(payload).base64url(HMAC-SHA256(key of its purpose, payload)), the payload naming the site", () => {
    const token = signer.sign({ act: "confirm", sub: SUBJECT, exp: 1_800_000_000 });
    const [payload, mac] = token.split(".");
    const json = Buffer.from(payload ?? "", "base64url").toString("utf8");
    expect(JSON.parse(json)).toEqual({ site: SITE, act: "confirm", sub: SUBJECT, exp: 1_800_000_000 });
    expect(mac).toBe(createHmac("sha256", purposeKey("confirm")).update(json).digest("base64url"));
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  });

  it("knows its site by origin: a trailing slash or a path makes no other site", () => {
    for (const site of [`${SITE}/`, `${SITE}/newsletter/confirm`]) {
      const same = new LinkSigner(SECRET, site);
      expect(refusal(same.sign({ act: "confirm", sub: SUBJECT, exp: LATER })), site).toBeNull();
    }
    const otherPort = new LinkSigner(SECRET, `${SITE}:8443`);
    expect(refusal(otherPort.sign({ act: "confirm", sub: SUBJECT, exp: LATER }))).toBe("other-site");
  });

  it("gives back the claims of a token it made, for its purpose, until it expires", () => {
    const exp = expiresIn(7 * 86_400_000, NOW);
    const token = signer.sign({ act: "confirm", sub: SUBJECT, exp });
    expect(signer.verify(token, "confirm", NOW)).toEqual({ act: "confirm", sub: SUBJECT, exp });
    expect(refusal(token, "confirm", new Date((exp - 1) * 1000))).toBeNull();
    expect(refusal(token, "confirm", new Date(exp * 1000))).toBe("expired");
  });

  it("a token without exp never expires", () => {
    const token = signer.sign({ act: "unsubscribe", sub: SUBJECT });
    expect(refusal(token, "unsubscribe", new Date("2099-01-01T00:00:00Z"))).toBeNull();
  });

  it("keeps jti, for links usable once", () => {
    const token = signer.sign({ act: "ops-sign-in", sub: SUBJECT, exp: expiresIn(900_000, NOW), jti: "x1" });
    expect(signer.verify(token, "ops-sign-in", NOW).jti).toBe("x1");
  });

  it("refuses a token signed with another secret, and says nothing more about it", () => {
    const other = new LinkSigner(`${SECRET}x`, SITE);
    const token = other.sign({ act: "confirm", sub: SUBJECT, exp: 1 });
    // Expired and signed elsewhere: the signature is what is reported.
    expect(refusal(token)).toBe("forged");
  });

  const elsewhere = new LinkSigner(SECRET, "https://other-studio.example");
  const purposes: LinkPurpose[] = ["confirm", "unsubscribe", "ops-sign-in"];
  const made = (purpose: LinkPurpose, by = signer) => by.sign({ act: purpose, sub: SUBJECT, exp: LATER });

  it.each<[string, string, LinkPurpose, LinkRefusal | null]>([
    ...purposes.map<[string, string, LinkPurpose, null]>((p) => [
      `${p}: this site, this purpose`,
      made(p),
      p,
      null,
    ]),
    ...purposes.map<[string, string, LinkPurpose, LinkRefusal]>((p) => [
      `${p}: another site sharing the secret`,
      made(p, elsewhere),
      p,
      "other-site",
    ]),
    [
      "another site, expired: the site is what is reported",
      elsewhere.sign({ act: "confirm", sub: SUBJECT, exp: 1 }),
      "confirm",
      "other-site",
    ],
    ["a confirm token used to unsubscribe", made("confirm"), "unsubscribe", "forged"],
    ["a confirm token used to sign in", made("confirm"), "ops-sign-in", "forged"],
    ["an unsubscribe token used to confirm", made("unsubscribe"), "confirm", "forged"],
    ["a sign-in token used to confirm", made("ops-sign-in"), "confirm", "forged"],
    [
      "the confirm key over a payload naming another purpose",
      signed(JSON.stringify({ site: SITE, act: "unsubscribe", sub: SUBJECT }), purposeKey("confirm")),
      "confirm",
      "other-purpose",
    ],
    [
      "the right key over a payload without a site",
      signed(JSON.stringify({ act: "confirm", sub: SUBJECT, exp: LATER }), purposeKey("confirm")),
      "confirm",
      "malformed",
    ],
    [
      "the old form of an unsubscribe token, to unsubscribe",
      legacy("newsletter.unsubscribe"),
      "unsubscribe",
      null,
    ],
    [
      "the old form of an unsubscribe token, to confirm",
      legacy("newsletter.unsubscribe"),
      "confirm",
      "forged",
    ],
    [
      "the old form of an unsubscribe token, to sign in",
      legacy("newsletter.unsubscribe"),
      "ops-sign-in",
      "forged",
    ],
    ["the old form of a confirm token, to confirm", legacy("newsletter.confirm"), "confirm", "forged"],
    [
      "the old form of a confirm token, to unsubscribe",
      legacy("newsletter.confirm"),
      "unsubscribe",
      "other-purpose",
    ],
    ["the old form of a sign-in token, to sign in", legacy("ops.sign-in"), "ops-sign-in", "forged"],
    [
      "the old form of an unsubscribe token under another secret",
      legacy("newsletter.unsubscribe", SUBJECT, `${SECRET}x`),
      "unsubscribe",
      "forged",
    ],
    [
      "the old form signed with the raw secret but naming a site",
      signed(JSON.stringify({ site: SITE, act: "unsubscribe", sub: SUBJECT }), SECRET),
      "unsubscribe",
      "other-purpose",
    ],
  ])("%s", (_label, token, purpose, reason) => {
    expect(refusal(token, purpose)).toBe(reason);
  });

  it("gives back the subject of an old-form unsubscribe token, as the current form's claims", () => {
    expect(signer.verify(legacy("newsletter.unsubscribe"), "unsubscribe", NOW)).toEqual({
      act: "unsubscribe",
      sub: SUBJECT,
    });
  });

  const good = signer.sign({ act: "confirm", sub: SUBJECT, exp: LATER });
  const [goodPayload = "", goodMac = ""] = good.split(".");
  const flip = (text: string, index: number) =>
    text.slice(0, index) + (text[index] === "A" ? "B" : "A") + text.slice(index + 1);

  it.each<[string, string, LinkRefusal]>([
    ["a changed payload character", `${flip(goodPayload, 5)}.${goodMac}`, "forged"],
    ["a changed signature character", `${goodPayload}.${flip(goodMac, 3)}`, "forged"],
    [
      "another subject under the old signature",
      `${b64(JSON.stringify({ site: SITE, act: "confirm", sub: "b".repeat(64), exp: 1_900_000_000 }))}.${goodMac}`,
      "forged",
    ],
    ["no signature", goodPayload, "malformed"],
    ["an empty signature", `${goodPayload}.`, "malformed"],
    ["a third part", `${good}.x`, "malformed"],
    ["a truncated signature", `${goodPayload}.${goodMac.slice(0, -2)}`, "malformed"],
    ["a signature one byte too long", `${goodPayload}.${b64(Buffer.alloc(33, 7))}`, "malformed"],
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

  it("refuses a token over 1,024 characters even when it is authentic", () => {
    const long = signer.sign({ act: "confirm", sub: "c".repeat(1_000), exp: LATER });
    expect(long.length).toBeGreaterThan(1_024);
    expect(refusal(long)).toBe("malformed");
  });

  it("refuses an authentic payload that is not the expected shape", () => {
    for (const json of [
      "[]",
      "null",
      `{"site":"${SITE}","act":"confirm"}`,
      `{"site":"${SITE}","act":"confirm","sub":1}`,
      `{"site":1,"act":"confirm","sub":"${SUBJECT}"}`,
      "{not json",
    ]) {
      expect(refusal(signed(json, purposeKey("confirm"))), json).toBe("malformed");
    }
    const stringExpiry = JSON.stringify({ site: SITE, act: "confirm", sub: SUBJECT, exp: "never" });
    expect(refusal(signed(stringExpiry, purposeKey("confirm")))).toBe("malformed");
  });
});

describe("LinkSigner: a key per purpose, and the old form's payload", () => {
  it.each<LinkPurpose>(["confirm", "unsubscribe", "ops-sign-in"])(
    "signs %s with that purpose's own key",
    (purpose) => {
      const [payload = "", mac] = signer.sign({ act: purpose, sub: SUBJECT }).split(".");
      const json = Buffer.from(payload, "base64url");
      expect(mac).toBe(createHmac("sha256", purposeKey(purpose)).update(json).digest("base64url"));
    },
  );

  it.each(['"newsletter.unsubscribe"', "5", "[]", "null", "{not json"])(
    "refuses an old-form payload that is no object (%s) as malformed",
    (json) => {
      expect(refusal(signed(json, SECRET), "unsubscribe")).toBe("malformed");
    },
  );
});
