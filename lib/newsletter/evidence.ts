import type { RequestSite } from "../http/origin";
import type { Verification } from "../verification/types";

/**
 * The evidence of a subscription's consent, as a regulator asks for it: when and how it was given
 * (`single`: by the request itself; `double`: confirmed from the emailed link, at `confirmedAt`),
 * the page the form was on, where the request came from (`site`), the request's client address as
 * a salted hash, and how the request's human check went. Written by each request that (re)starts a
 * subscription.
 */
export interface ConsentEvidence {
  /** ISO 8601, UTC: the request. */
  at: string;
  method: "single" | "double";
  /** The path and query of the page the form was on, when it said. */
  page?: string;
  /**
   * `same-origin` (the site's own pages), `cross-site` (a browser marked it as sent from another
   * site) or `unknown` (no header said); absent in records written before it existed.
   */
  site?: RequestSite;
  /** HMAC-SHA256 of the client address with `IP_HASH_SALT` (as briefs' `client.ipHash`); `null`: unknown. */
  ipHash: string | null;
  verification: Verification;
  /** Double opt-in: when the emailed link confirmed it. */
  confirmedAt?: string;
}

/** What a subscription request says of itself: the form's page, its client's hash, its human check. */
export interface ConsentSource {
  page?: string;
  site?: RequestSite;
  ipHash?: string | null;
  verification?: Verification;
}

/** The consent evidence of a request made at `at`. */
export function consentOf(source: ConsentSource, at: string, doubleOptIn: boolean): ConsentEvidence {
  return {
    at,
    method: doubleOptIn ? "double" : "single",
    ...(source.page ? { page: source.page } : {}),
    site: source.site ?? "unknown",
    ipHash: source.ipHash ?? null,
    verification: source.verification ?? "off",
  };
}
