/** Where a client sends the widget's token: a form field, or a key of a JSON body. */
export const TOKEN_FIELD = "cf-turnstile-response";

/**
 * How a request's human check went, as a brief, its notifications and a subscriber record keep it:
 * `passed` (siteverify confirmed the token), `unavailable` (siteverify could not be asked, so the
 * request went on unchecked) or `off` (verification is not configured).
 */
export type Verification = "passed" | "unavailable" | "off";

export const VERIFICATIONS: readonly Verification[] = ["passed", "unavailable", "off"];

/**
 * What a token was issued for: the widget is rendered with the action, siteverify reports it back,
 * and a token for one form is refused by another.
 */
export type VerificationAction = "contact" | "newsletter" | "upload" | "ops-sign-in";

export interface VerificationRequest {
  /** The widget's token as the client sent it; `null` when it sent none. */
  token: string | null;
  action: VerificationAction;
  /** The client's address, passed on to siteverify when known. */
  remoteIp: string | null;
}

/** A check's outcome: a `Verification` to record, or a refusal (403 `challenge_failed` on a route). */
export type VerificationResult = { ok: true; verification: Verification } | { ok: false; reason: string };

/** Decides whether a request comes from a person. Drivers: Cloudflare Turnstile, and off. */
export interface Verifier {
  readonly driver: "turnstile" | "off";
  /** Never rejects: an unreachable service is `unavailable`, not an error. */
  verify(request: VerificationRequest): Promise<VerificationResult>;
}
