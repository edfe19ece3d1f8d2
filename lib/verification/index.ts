import type { Config } from "../config";
import { ApiError } from "../http/errors";
import { OffVerifier } from "./off";
import { TurnstileVerifier } from "./turnstile";
import type { Verification, VerificationRequest, Verifier } from "./types";

export { TOKEN_FIELD, tokenFromFormEncoded, tokenFromJson, tokenFromMultipart } from "./token";
export { SITEVERIFY_FIRST_ATTEMPT_MS, SITEVERIFY_TOTAL_MS, TurnstileVerifier } from "./turnstile";
export { OffVerifier } from "./off";
export { VERIFICATIONS } from "./types";
export type {
  Verification,
  VerificationAction,
  VerificationRequest,
  VerificationResult,
  Verifier,
} from "./types";

/** The configured verifier: Turnstile when both keys are set, else off. */
export function createVerifier(config: Config): Verifier {
  if (!config.turnstile) return new OffVerifier();
  const hostnames = [config.siteOrigin, ...config.allowedOrigins].map((origin) => new URL(origin).hostname);
  return new TurnstileVerifier(config.turnstile, { hostnames });
}

/** The site key the forms render the widget with; `null` when verification is off. Public. */
export function widgetSiteKey(config: Config): string | null {
  return config.turnstile?.siteKey ?? null;
}

/**
 * Checks that a request comes from a person, for a route: the outcome to record, or 403
 * `challenge_failed` (nothing is stored then). Runs after validation, so a visitor's field errors
 * never spend the token, and before the store.
 */
export async function requireHuman(verifier: Verifier, request: VerificationRequest): Promise<Verification> {
  const result = await verifier.verify(request);
  if (!result.ok) throw new ApiError("challenge_failed");
  return result.verification;
}
