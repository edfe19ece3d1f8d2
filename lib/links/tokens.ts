import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed link tokens for links emailed to visitors (and, later, to ops):
 * `base64url(payload).base64url(HMAC-SHA256(secret, payload))`, the payload being JSON that names
 * the action and the subject (an id such as a subscriber's sha256, never an address), with an
 * expiry where the link has one. Anyone can read a payload; only the secret's holder can make one.
 */

/** What a token says. Short keys: the token travels in URLs and email headers. */
export interface LinkPayload {
  /** What the link does, e.g. `newsletter.confirm`: a token for one action never does another. */
  act: string;
  /** Whom it is for: an opaque id (a subscriber's sha256 of the lowercased address). */
  sub: string;
  /** Unix seconds after which the token is refused; absent: it never expires. */
  exp?: number;
  /** A random id, for a link usable once: whoever spends it records this. */
  jti?: string;
}

/** Why a token was refused: only `expired` is ever said apart, and only for an authentic token. */
export type LinkRefusal = "malformed" | "forged" | "wrong-action" | "expired";

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

export class LinkSigner {
  private readonly secret: string;

  constructor(secret: string) {
    this.secret = secret;
  }

  sign(payload: LinkPayload): string {
    const bytes = Buffer.from(JSON.stringify(payload), "utf8");
    return `${bytes.toString("base64url")}.${this.mac(bytes).toString("base64url")}`;
  }

  /**
   * The payload of an authentic token for `action` that has not expired at `now`; throws
   * `InvalidLinkError` otherwise. The signature is checked first, in constant time, so nothing
   * about a forged token's payload is ever looked at.
   */
  verify(token: string, action: string, now: Date = new Date()): LinkPayload {
    if (token.length > MAX_TOKEN_LENGTH) throw new InvalidLinkError("malformed");
    const [encoded, signature, ...rest] = token.split(".");
    if (encoded === undefined || signature === undefined || rest.length > 0) {
      throw new InvalidLinkError("malformed");
    }
    const given = strictBase64url(signature);
    const bytes = strictBase64url(encoded);
    if (given === null || given.length !== MAC_BYTES || bytes === null) {
      throw new InvalidLinkError("malformed");
    }
    if (!timingSafeEqual(given, this.mac(bytes))) throw new InvalidLinkError("forged");
    const payload = parsePayload(bytes.toString("utf8"));
    if (payload.act !== action) throw new InvalidLinkError("wrong-action");
    if (payload.exp !== undefined && now.getTime() / 1000 >= payload.exp)
      throw new InvalidLinkError("expired");
    return payload;
  }

  /** HMAC-SHA256 of the payload's bytes (only their one canonical spelling is accepted). */
  private mac(payload: Buffer): Buffer {
    return createHmac("sha256", this.secret).update(payload).digest();
  }
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

/** A signed payload is ours, but checked all the same: a wrong shape is a bug, never a pass. */
function parsePayload(json: string): LinkPayload {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new InvalidLinkError("malformed");
  }
  const { act, sub, exp, jti } = (value ?? {}) as Record<string, unknown>;
  if (
    typeof act !== "string" ||
    typeof sub !== "string" ||
    (exp !== undefined && (typeof exp !== "number" || !Number.isFinite(exp))) ||
    (jti !== undefined && typeof jti !== "string")
  ) {
    throw new InvalidLinkError("malformed");
  }
  return {
    act,
    sub,
    ...(exp === undefined ? {} : { exp }),
    ...(jti === undefined ? {} : { jti }),
  };
}

/** Unix seconds `ms` after `now`: an `exp` for a link valid that long. */
export function expiresIn(ms: number, now: Date = new Date()): number {
  return Math.floor((now.getTime() + ms) / 1000);
}
