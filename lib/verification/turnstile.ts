import { randomUUID } from "node:crypto";
import type { TurnstileSettings } from "../config";
import { askSiteverify, type SiteverifyAnswer } from "./siteverify-call";
import type { VerificationRequest, VerificationResult, Verifier } from "./types";

/** siteverify gets this long in all, both attempts together. */
export const SITEVERIFY_TOTAL_MS = 3_000;

/**
 * The first attempt's share: a siteverify that hangs still leaves time for the retry. A refused
 * connection fails at once, and the retry then gets the rest.
 */
export const SITEVERIFY_FIRST_ATTEMPT_MS = 1_500;

/** While siteverify is failing, one warning per this period, with a count, not one per request. */
const WARNING_INTERVAL_MS = 10_000;

/** Cloudflare's tokens are at most 2048 characters; a longer one is refused without asking. */
const MAX_TOKEN_LENGTH = 2_048;

export interface TurnstileOptions {
  /** The hostnames a token may have been issued on: `SITE_URL`'s and those of `ALLOWED_ORIGINS`. */
  hostnames: readonly string[];
  totalMs?: number;
  firstAttemptMs?: number;
  warn?: (message: string) => void;
}

/**
 * Checks Turnstile tokens with Cloudflare's siteverify (`TURNSTILE_VERIFY_URL`): form-encoded
 * `secret`, `response`, `remoteip` when known and an `idempotency_key`, bounded to 3 s in all with
 * one retry that carries the same key (so siteverify knows it for the same check, not a replay).
 * A token passes when siteverify says `success` for this site's hostname and the expected action.
 *
 * When siteverify cannot be asked (unreachable, timing out, a 5xx), the request goes on as
 * `unavailable`: turning every visitor away while Cloudflare is down would be worse than letting
 * some spam through, and ops see `unavailable` on each brief. A warning is logged then, the first at
 * once and then once per 10 s with a count, never with a client address or a token.
 */
export class TurnstileVerifier implements Verifier {
  readonly driver = "turnstile";
  private readonly hostnames: Set<string>;
  private readonly totalMs: number;
  private readonly firstAttemptMs: number;
  private readonly warn: (message: string) => void;
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  private uncheckedSinceWarning = 0;

  constructor(
    private readonly settings: TurnstileSettings,
    options: TurnstileOptions,
  ) {
    this.hostnames = new Set(options.hostnames.map(bareHostname));
    this.totalMs = options.totalMs ?? SITEVERIFY_TOTAL_MS;
    this.firstAttemptMs = options.firstAttemptMs ?? SITEVERIFY_FIRST_ATTEMPT_MS;
    this.warn = options.warn ?? ((message) => console.warn(message));
  }

  async verify({ token, action, remoteIp }: VerificationRequest): Promise<VerificationResult> {
    if (token === null || token === "") return { ok: false, reason: "no token" };
    if (token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: "token too long" };

    const form = new URLSearchParams({
      secret: this.settings.secretKey,
      response: token,
      idempotency_key: randomUUID(),
    });
    if (remoteIp !== null) form.set("remoteip", remoteIp);
    const body = form.toString();

    const deadline = Date.now() + this.totalMs;
    let problem = "siteverify was not asked";
    for (let attempt = 0; attempt < 2; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const outcome = await askSiteverify(
        this.settings.verifyUrl,
        body,
        attempt === 0 ? Math.min(this.firstAttemptMs, remaining) : remaining,
      );
      if (outcome.kind === "answer") {
        this.recovered();
        return this.judge(outcome.answer, action);
      }
      if (outcome.kind === "refused") {
        this.report(
          `siteverify refused the request (${outcome.problem}); check TURNSTILE_SECRET_KEY and TURNSTILE_VERIFY_URL`,
          false,
        );
        return { ok: false, reason: outcome.problem };
      }
      problem = outcome.problem;
    }
    this.report(problem, true);
    return { ok: true, verification: "unavailable" };
  }

  private judge(answer: SiteverifyAnswer, action: string): VerificationResult {
    if (!answer.success) {
      const codes = Array.isArray(answer["error-codes"]) ? answer["error-codes"].join(", ") : "";
      return { ok: false, reason: `siteverify said no${codes ? ` (${codes})` : ""}` };
    }
    // Cloudflare's test keys answer for no real hostname or action (see TurnstileSettings.testKeys).
    if (!this.settings.testKeys) {
      const hostname = typeof answer.hostname === "string" ? bareHostname(answer.hostname) : "";
      if (!this.hostnames.has(hostname)) return { ok: false, reason: "the token was issued on another site" };
      if (answer.action !== action) return { ok: false, reason: "the token was issued for another form" };
    }
    return { ok: true, verification: "passed" };
  }

  /** After an outage: say so, and let the next one warn at once. */
  private recovered(): void {
    if (this.lastWarningAt === Number.NEGATIVE_INFINITY) return;
    const unchecked = this.uncheckedSinceWarning;
    this.warn(
      `[verification] siteverify answers again${unchecked > 0 ? ` (${unchecked} more request(s) let through unchecked)` : ""}`,
    );
    this.lastWarningAt = Number.NEGATIVE_INFINITY;
    this.uncheckedSinceWarning = 0;
  }

  /** One warning per interval; `letThrough`: the request goes on as `unavailable` and is counted. */
  private report(problem: string, letThrough: boolean): void {
    const now = Date.now();
    if (letThrough) this.uncheckedSinceWarning += 1;
    if (now - this.lastWarningAt < WARNING_INTERVAL_MS) return;
    const count = this.uncheckedSinceWarning;
    this.warn(
      letThrough
        ? `[verification] ${problem}; ${count} request(s) let through unchecked (verification: unavailable)`
        : `[verification] ${problem}`,
    );
    this.lastWarningAt = now;
    this.uncheckedSinceWarning = 0;
  }
}

/** A hostname as compared: lowercase, an IPv6 address without its brackets. */
function bareHostname(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
}
