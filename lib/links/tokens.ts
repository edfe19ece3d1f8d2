import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed link tokens for the links emailed to visitors and to ops:
 * `base64url(payload).base64url(HMAC-SHA256(key, payload))`, the payload being JSON that names the
 * site (`SITE_URL`'s origin), the purpose and the subject (an id such as a subscriber's sha256,
 * never an address), with an expiry where the link has one. The key is derived from
 * `LINK_SIGNING_SECRET` per purpose, so one secret shared by several sites, or by the newsletter
 * and the ops sign-in, never lets a token do more than the one thing on the one site it was made
 * for. Anyone can read a payload; only the secret's holder can make one.
 */

/** What a link is for, as the contract spells it. */
export type LinkPurpose = "confirm" | "unsubscribe" | "ops-sign-in";

const PURPOSES: readonly LinkPurpose[] = ["confirm", "unsubscribe", "ops-sign-in"];

/** What a token says besides its site. Short keys: the token travels in URLs and email headers. */
export interface LinkClaims {
  /** What the link does: a token for one purpose never does another. */
  act: LinkPurpose;
  /** Whom it is for: an opaque id (a subscriber's sha256 of the lowercased address). */
  sub: string;
  /** Unix seconds after which the token is refused; absent: it never expires. */
  exp?: number;
  /** A random id, for a link usable once: whoever spends it records this. */
  jti?: string;
}

/** Why a token was refused: only `expired` is ever said apart, and only for an authentic token. */
export type LinkRefusal = "malformed" | "forged" | "other-site" | "other-purpose" | "expired";

export class InvalidLinkError extends Error {
  override name = "InvalidLinkError";
  readonly reason: LinkRefusal;

  constructor(reason: LinkRefusal) {
    super(`Link token refused: ${reason}`);
    this.reason = reason;
  }
}

/** Longer than any token this service makes, by far: refused before any decoding. */
const MAX_TOKEN_LENGTH = 1_024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAC_BYTES = 32;
/**
 * The key of a purpose is HMAC-SHA256(secret, this label + purpose). The label is not JSON, so no
 * MAC the secret ever made over a payload (the old form signed with the secret itself) is a key.
 */
const KEY_LABEL = "studio-intake/link-token/v2/";
/**
 * Unsubscribe links sent before the site and purpose were in the token: they never expire, so
 * they are still honoured, and only for unsubscribing (`{ act, sub }`, MAC keyed by the secret).
 */
const LEGACY_UNSUBSCRIBE_ACT = "newsletter.unsubscribe";

export class LinkSigner {
  private readonly secret: string;
  private readonly site: string;
  private readonly keys: Readonly<Record<LinkPurpose, Buffer>>;

  /** `site`: `SITE_URL`'s origin, named in every token made and required in every token taken. */
  constructor(secret: string, site: string) {
    this.secret = secret;
    this.site = new URL(site).origin;
    const key = (purpose: LinkPurpose) =>
      createHmac("sha256", secret)
        .update(KEY_LABEL + purpose)
        .digest();
    this.keys = {
      confirm: key("confirm"),
      unsubscribe: key("unsubscribe"),
      "ops-sign-in": key("ops-sign-in"),
    };
  }

  sign(claims: LinkClaims): string {
    const bytes = Buffer.from(JSON.stringify({ site: this.site, ...claims }), "utf8");
    return `${bytes.toString("base64url")}.${this.mac(claims.act, bytes).toString("base64url")}`;
  }

  /**
   * The claims of an authentic token of this site for `purpose` that has not expired at `now`;
   * throws `InvalidLinkError` otherwise. The signature is checked first, in constant time, with the
   * purpose's own key, so nothing about a forged token's payload (or another purpose's) is looked at.
   */
  verify(token: string, purpose: LinkPurpose, now: Date = new Date()): LinkClaims {
    const claims = this.authenticClaims(token, purpose);
    if (claims.exp !== undefined && now.getTime() / 1000 >= claims.exp) throw new InvalidLinkError("expired");
    return claims;
  }

  private authenticClaims(token: string, purpose: LinkPurpose): LinkClaims {
    const { bytes, given } = splitToken(token);
    if (timingSafeEqual(given, this.mac(purpose, bytes))) return this.currentClaims(bytes, purpose);
    if (purpose === "unsubscribe" && timingSafeEqual(given, this.legacyMac(bytes))) {
      return legacyUnsubscribeClaims(bytes);
    }
    throw new InvalidLinkError("forged");
  }

  private currentClaims(bytes: Buffer, purpose: LinkPurpose): LinkClaims {
    const { site, ...claims } = parsePayload(bytes);
    if (typeof site !== "string") throw new InvalidLinkError("malformed");
    const parsed = parseClaims(claims);
    if (site !== this.site) throw new InvalidLinkError("other-site");
    // The key already binds the purpose; a payload naming another one is a bug, never a pass.
    if (parsed.act !== purpose) throw new InvalidLinkError("other-purpose");
    return parsed;
  }

  /** HMAC-SHA256 of the payload's bytes (only their one canonical spelling is accepted). */
  private mac(purpose: LinkPurpose, payload: Buffer): Buffer {
    return createHmac("sha256", this.keys[purpose]).update(payload).digest();
  }

  private legacyMac(payload: Buffer): Buffer {
    return createHmac("sha256", this.secret).update(payload).digest();
  }
}

/** The payload's bytes and the signature of a well-formed token; `malformed` otherwise. */
function splitToken(token: string): { bytes: Buffer; given: Buffer } {
  if (token.length > MAX_TOKEN_LENGTH) throw new InvalidLinkError("malformed");
  const [encoded, signature, ...rest] = token.split(".");
  if (encoded === undefined || signature === undefined || rest.length > 0) {
    throw new InvalidLinkError("malformed");
  }
  const given = strictBase64url(signature);
  const bytes = strictBase64url(encoded);
  // timingSafeEqual throws on a length mismatch: the length is checked first, and is no secret.
  if (given === null || given.length !== MAC_BYTES || bytes === null) {
    throw new InvalidLinkError("malformed");
  }
  return { bytes, given };
}

/**
 * The bytes of canonical base64url text, or `null`. Node's decoder skips characters it does not
 * know and ignores stray trailing bits, so one token could be spelled several ways; only the
 * spelling that encoding its bytes gives back is taken.
 */
function strictBase64url(text: string): Buffer | null {
  if (!BASE64URL.test(text)) return null;
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : null;
}

function parsePayload(bytes: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new InvalidLinkError("malformed");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidLinkError("malformed");
  }
  return value as Record<string, unknown>;
}

/** A signed payload is ours, but checked all the same: a wrong shape is a bug, never a pass. */
function parseClaims({ act, sub, exp, jti }: Record<string, unknown>): LinkClaims {
  if (
    typeof act !== "string" ||
    typeof sub !== "string" ||
    (exp !== undefined && (typeof exp !== "number" || !Number.isFinite(exp))) ||
    (jti !== undefined && typeof jti !== "string")
  ) {
    throw new InvalidLinkError("malformed");
  }
  if (!PURPOSES.includes(act as LinkPurpose)) throw new InvalidLinkError("other-purpose");
  return {
    act: act as LinkPurpose,
    sub,
    ...(exp === undefined ? {} : { exp }),
    ...(jti === undefined ? {} : { jti }),
  };
}

/** An old-form token signed with the secret itself: honoured only as an unsubscribe link. */
function legacyUnsubscribeClaims(bytes: Buffer): LinkClaims {
  const { act, ...rest } = parsePayload(bytes);
  if (act !== LEGACY_UNSUBSCRIBE_ACT) throw new InvalidLinkError("other-purpose");
  return parseClaims({ ...rest, act: "unsubscribe" });
}

/** Unix seconds `ms` after `now`: an `exp` for a link valid that long. */
export function expiresIn(ms: number, now: Date = new Date()): number {
  return Math.floor((now.getTime() + ms) / 1000);
}
