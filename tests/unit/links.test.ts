import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  expiresIn,
  InvalidLinkError,
  type LinkClaims,
  type LinkPurpose,
  type LinkRefusal,
  LinkSigner,
} from "@/lib/links";

const SECRET = "0123456789abcdef0123456789abcdef";
const SITE = "https://studio.example";
/**
 * A signer made afresh for each call: nothing of lib/links runs while the tests are collected
 * (Stryker cannot switch a mutant on for code that runs then; see docs/development.md).
 */
const signerFor = (site: string) => ({
  sign: (claims: LinkClaims) => new LinkSigner(SECRET, site).sign(claims),
  verify: (token: string, purpose: LinkPurpose, now?: Date) =>
    new LinkSigner(SECRET, site).verify(token, purpose, now),
});
const signer = signerFor(SITE);
const NOW = new Date("2026-03-01T10:00:00.000Z");
const SUBJECT = "a".repeat(64);
const LATER = NOW.getTime() / 1000 + 86_400;

function refusal(token: string, purpose: LinkPurpose = "confirm", now = NOW): LinkRefusal | null {
  try {
    signer.verify(token, purpose, now);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidLinkError);
    return (error as InvalidLinkError).reason;
  }
}

type Token = string | (() => string);

interface Good {
  good: string;
  goodPayload: string;
  goodMac: string;
}

/** An authentic confirm token, and its two parts. */
function goodToken(): Good {
  const good = signer.sign({ act: "confirm", sub: SUBJECT, exp: LATER });
  const [goodPayload = "", goodMac = ""] = good.split(".");
  return { good, goodPayload, goodMac };
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

  const elsewhere = signerFor("https://other-studio.example");
  const purposes: LinkPurpose[] = ["confirm", "unsubscribe", "ops-sign-in"];
  const made =
    (purpose: LinkPurpose, by = signer) =>
    () =>
      by.sign({ act: purpose, sub: SUBJECT, exp: LATER });

  it.each<[string, Token, LinkPurpose, LinkRefusal | null]>([
    ...purposes.map<[string, Token, LinkPurpose, null]>((p) => [
      `${p}: this site, this purpose`,
      made(p),
      p,
      null,
    ]),
    ...purposes.map<[string, Token, LinkPurpose, LinkRefusal]>((p) => [
      `${p}: another site sharing the secret`,
      made(p, elsewhere),
      p,
      "other-site",
    ]),
    [
      "another site, expired: the site is what is reported",
      () => elsewhere.sign({ act: "confirm", sub: SUBJECT, exp: 1 }),
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
    expect(refusal(typeof token === "string" ? token : token(), purpose)).toBe(reason);
  });

  it("gives back the subject of an old-form unsubscribe token, as the current form's claims", () => {
    expect(signer.verify(legacy("newsletter.unsubscribe"), "unsubscribe", NOW)).toEqual({
      act: "unsubscribe",
      sub: SUBJECT,
    });
  });

  const flip = (text: string, index: number) =>
    text.slice(0, index) + (text[index] === "A" ? "B" : "A") + text.slice(index + 1);

  it.each<[string, (good: Good) => string, LinkRefusal]>([
    ["a changed payload character", (t) => `${flip(t.goodPayload, 5)}.${t.goodMac}`, "forged"],
    ["a changed signature character", (t) => `${t.goodPayload}.${flip(t.goodMac, 3)}`, "forged"],
    [
      "another subject under the old signature",
      (t) =>
        `${b64(JSON.stringify({ site: SITE, act: "confirm", sub: "b".repeat(64), exp: 1_900_000_000 }))}.${t.goodMac}`,
      "forged",
    ],
    ["no signature", (t) => t.goodPayload, "malformed"],
    ["an empty signature", (t) => `${t.goodPayload}.`, "malformed"],
    ["a third part", (t) => `${t.good}.x`, "malformed"],
    ["a truncated signature", (t) => `${t.goodPayload}.${t.goodMac.slice(0, -2)}`, "malformed"],
    ["a signature one byte too long", (t) => `${t.goodPayload}.${b64(Buffer.alloc(33, 7))}`, "malformed"],
    ["a signature with padding", (t) => `${t.goodPayload}.${t.goodMac}=`, "malformed"],
    [
      "a signature in standard base64",
      (t) => `${t.goodPayload}.${t.goodMac.replace(/[-_]/g, "+")}x`,
      "malformed",
    ],
    [
      "a non-canonical last character",
      (t) => `${t.goodPayload}.${t.goodMac.slice(0, -1)}${String.fromCharCode(t.goodMac.charCodeAt(42) ^ 1)}`,
      "malformed",
    ],
    ["the empty string", () => "", "malformed"],
    ["spaces", (t) => `${t.goodPayload} .${t.goodMac}`, "malformed"],
    ["a very long token", (t) => `${"A".repeat(2_000)}.${t.goodMac}`, "malformed"],
  ])("refuses %s", (_label, token, reason) => {
    expect(refusal(token(goodToken()))).toBe(reason);
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

describe("LinkSigner: each refusal on its own", () => {
  /** An authentic confirm token whose whole length is `length` (the subject fills it up). */
  function tokenOfLength(length: number): string {
    for (let size = 1; size < length; size++) {
      const token = signer.sign({ act: "confirm", sub: "s".repeat(size) });
      if (token.length === length) return token;
      if (token.length > length) break;
    }
    throw new Error(`no token of ${length} characters`);
  }

  it("takes an authentic token of exactly 1,024 characters, refuses one just over", () => {
    expect(refusal(tokenOfLength(1_024))).toBeNull();
    expect(refusal(tokenOfLength(1_026))).toBe("malformed");
  });

  it("refuses a well-formed signature of the wrong length before comparing it", () => {
    const { goodPayload } = goodToken();
    // 16 canonical bytes: were the length not checked first, timingSafeEqual would throw a RangeError.
    expect(refusal(`${goodPayload}.${b64(Buffer.alloc(16, 7))}`)).toBe("malformed");
    expect(refusal(`${goodPayload}.${b64(Buffer.alloc(31, 7))}`)).toBe("malformed");
  });

  it("refuses an empty payload before checking the signature", () => {
    const { goodPayload, goodMac } = goodToken();
    expect(refusal(`.${goodMac}`)).toBe("malformed");
    expect(refusal(`${goodPayload}=.${goodMac}`)).toBe("malformed");
  });

  it.each<[string, string, LinkRefusal]>([
    ["an infinite expiry", `{"site":"${SITE}","act":"confirm","sub":"${SUBJECT}","exp":1e999}`, "malformed"],
    ["a numeric jti", `{"site":"${SITE}","act":"confirm","sub":"${SUBJECT}","jti":1}`, "malformed"],
    ["a numeric act", `{"site":"${SITE}","act":1,"sub":"${SUBJECT}"}`, "malformed"],
    [
      "a purpose that does not exist",
      `{"site":"${SITE}","act":"delete","sub":"${SUBJECT}"}`,
      "other-purpose",
    ],
    // The purpose is looked at before the site: an unknown purpose is never "another site's".
    [
      "a purpose that does not exist, for another site",
      `{"site":"https://other.example","act":"delete","sub":"${SUBJECT}"}`,
      "other-purpose",
    ],
    ["a string", `"${SUBJECT}"`, "malformed"],
  ])("refuses an authentic payload with %s", (_label, json, reason) => {
    expect(refusal(signed(json, purposeKey("confirm")))).toBe(reason);
  });

  it("gives back exactly the claims given: no absent exp or jti made up", () => {
    expect(signer.verify(signer.sign({ act: "confirm", sub: SUBJECT }), "confirm", NOW)).toStrictEqual({
      act: "confirm",
      sub: SUBJECT,
    });
    const claims = { act: "ops-sign-in", sub: SUBJECT, exp: LATER, jti: "j1" } as const;
    expect(signer.verify(signer.sign(claims), "ops-sign-in", NOW)).toStrictEqual(claims);
  });

  it("checks expiry against the present when not told the time", () => {
    const now = Date.now();
    expect(() =>
      signer.verify(signer.sign({ act: "confirm", sub: SUBJECT, exp: now / 1000 - 1 }), "confirm"),
    ).toThrow(InvalidLinkError);
    const open = signer.sign({ act: "confirm", sub: SUBJECT, exp: now / 1000 + 60 });
    expect(signer.verify(open, "confirm").sub).toBe(SUBJECT);
  });

  it("says why in its error", () => {
    const error = new InvalidLinkError("expired");
    expect(error.name).toBe("InvalidLinkError");
    expect(error.message).toBe("Link token refused: expired");
    expect(error.reason).toBe("expired");
    expect(error).toBeInstanceOf(Error);
  });

  it("expiresIn rounds down to whole seconds after now", () => {
    expect(expiresIn(1_500, new Date(1_000))).toBe(2);
    expect(expiresIn(999, new Date(0))).toBe(0);
    const before = Math.floor(Date.now() / 1000);
    expect(expiresIn(10_000)).toBeGreaterThanOrEqual(before + 10);
    expect(expiresIn(10_000)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 10);
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
