/**
 * Why a channel's attempt failed, as part 4's retry schedule needs it: the one line ops read, the
 * status the receiving end answered (HTTP status or SMTP reply code), whether trying again can
 * help, and how long the receiver asked to be left alone.
 */
export interface FailureDetails {
  /** The HTTP status or SMTP reply code, when the other end answered. */
  status?: number;
  /** False when the same attempt would fail again (a webhook 4xx other than 408/425/429, SMTP 5xx). */
  retryable: boolean;
  /** A webhook's `Retry-After` on 429/503, in milliseconds. */
  retryAfterMs?: number;
}

/** A failure a channel has already classified (`postWebhook` throws these). */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly details: FailureDetails,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "DeliveryError";
  }
}

/** Webhook answers worth another attempt besides every 5xx: timeout, too early, too many requests. */
const RETRYABLE_HTTP = new Set([408, 425, 429]);

/** Whether a webhook's HTTP status is worth retrying (the contract's list). */
export function retryableStatus(status: number): boolean {
  return status >= 500 || RETRYABLE_HTTP.has(status);
}

/** The most a `Retry-After` is taken from, so a receiver cannot park a brief for days. */
const RETRY_AFTER_CAP_MS = 24 * 60 * 60 * 1000;

/**
 * `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; `undefined` when absent
 * or unreadable (the schedule's own step then applies).
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else if (/^[-+]?\d/.test(text))
    return undefined; // a negative or signed number is neither form
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS);
}

/**
 * How any failure of an attempt is taken. A `DeliveryError` says so itself; an SMTP error carries
 * nodemailer's `responseCode` (a 5xx reply is final, a 4xx one temporary); everything else (a
 * refused or dropped connection, a timeout, a store that could not give the attachment) may pass,
 * so it is retried.
 */
export function classifyFailure(error: unknown): FailureDetails {
  if (error instanceof DeliveryError) return error.details;
  const code = smtpReplyCode(error);
  if (code !== undefined) return { status: code, retryable: code < 500 };
  return { retryable: true };
}

/** nodemailer's reply code, on the error or its cause (`SmtpSender` wraps some errors). */
function smtpReplyCode(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { responseCode?: unknown }).responseCode;
    if (typeof code === "number" && code >= 200 && code < 600) return code;
    current = current.cause;
  }
  return undefined;
}
