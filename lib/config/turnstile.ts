import type { ConfigReader } from "./reader";
import type { Config } from "./types";
import { httpUrl } from "./values";

/** Cloudflare's siteverify endpoint, where Turnstile tokens are checked. */
export const TURNSTILE_SITEVERIFY_URL = "https://challenges.cloudflare.com/turnstile/v0/siteverify";

/**
 * Cloudflare's published test secret keys (always passes, always fails, "token already spent").
 * They accept only the test widgets' dummy token, and siteverify's answer to it names neither the
 * widget's action nor the site's hostname, so those two checks cannot apply.
 */
const TURNSTILE_TEST_SECRET_KEYS = new Set([
  "1x0000000000000000000000000000000AA",
  "2x0000000000000000000000000000000AA",
  "3x0000000000000000000000000000000AA",
]);

/** `TURNSTILE_*`: human verification, on when both keys are set; half a configuration is refused. */
export function parseTurnstile({ raw, problems, warnings, read }: ConfigReader): Config["turnstile"] {
  let turnstile: Config["turnstile"] = null;
  const verifyUrl = read(raw.TURNSTILE_VERIFY_URL, httpUrl("TURNSTILE_VERIFY_URL"), null);
  if (raw.TURNSTILE_SECRET_KEY && raw.TURNSTILE_SITE_KEY) {
    const testKeys = TURNSTILE_TEST_SECRET_KEYS.has(raw.TURNSTILE_SECRET_KEY);
    turnstile = {
      secretKey: raw.TURNSTILE_SECRET_KEY,
      siteKey: raw.TURNSTILE_SITE_KEY,
      verifyUrl: verifyUrl?.href ?? TURNSTILE_SITEVERIFY_URL,
      testKeys,
    };
    if (testKeys) {
      warnings.push(
        "TURNSTILE_SECRET_KEY is one of Cloudflare's test keys: no visitor is really checked (for local use only)",
      );
    }
  } else if (raw.TURNSTILE_SECRET_KEY || raw.TURNSTILE_SITE_KEY) {
    // Half a configuration would either check nothing or refuse every visitor: stop instead.
    const missing = raw.TURNSTILE_SECRET_KEY ? "TURNSTILE_SITE_KEY" : "TURNSTILE_SECRET_KEY";
    problems.push(
      `${missing} is not set: TURNSTILE_SECRET_KEY and TURNSTILE_SITE_KEY turn human verification on together`,
    );
  } else if (raw.TURNSTILE_VERIFY_URL) {
    warnings.push(
      "TURNSTILE_VERIFY_URL is set without TURNSTILE_SECRET_KEY and TURNSTILE_SITE_KEY: human verification is off",
    );
  }
  return turnstile;
}
