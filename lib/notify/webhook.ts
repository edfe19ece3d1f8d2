import { Webhook } from "standardwebhooks";
import { DeliveryError, parseRetryAfter, retryableStatus } from "./failure";
import { briefReceivedBody } from "./payload";
import type { BriefNotice, Channel } from "./types";

/**
 * Standard Webhooks headers for one message. The id is derived from the reference, so a brief
 * sent again (by ops, after a failure) carries the same id and a receiver can drop the duplicate.
 */
export function signatureHeaders(
  signer: Webhook,
  reference: string,
  body: string,
  now = new Date(),
): Record<string, string> {
  return messageHeaders(signer, `msg_${reference}`, body, now);
}

/** Standard Webhooks headers for the message `id` (the same id each time the same message is sent). */
export function messageHeaders(
  signer: Webhook,
  id: string,
  body: string,
  now = new Date(),
): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": signer.sign(id, now, body),
  };
}

/**
 * POSTs one JSON event to `url`, signed when there is a signer; resolves on a 2xx answer (with it) and
 * rejects with the reason otherwise (a `DeliveryError` naming the status, for the retry schedule).
 * Redirects are never followed: they would re-send the event (personal data, and a valid
 * signature) to wherever the receiver points, possibly another host. Through undici's `request`
 * rather than `fetch`, as Turnstile's check is (siteverify-call.ts in lib/verification): the
 * contact answer waits for the channels, and `request` costs the thread every request shares a
 * third of what `fetch` does (no web streams, no Request and Response objects, none of Next's
 * instrumentation of `fetch`), on the same keep-alive connections. undici is loaded by the first
 * post, not with the routes: a server without a webhook never loads it.
 */
export async function postWebhook(
  url: string,
  signer: Webhook | null,
  id: string,
  body: string,
  signal: AbortSignal,
): Promise<number> {
  const { request } = await import("undici");
  const {
    statusCode,
    headers,
    body: answer,
  } = await request(url, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "studio-intake-webhook/1",
      ...(signer ? messageHeaders(signer, id, body) : {}),
    },
    signal,
  });
  // Only the status matters; reading the body to its end frees the connection for the next event.
  await answer.dump().catch(() => {});
  if (statusCode >= 200 && statusCode < 300) return statusCode;
  if (statusCode >= 300 && statusCode < 400) {
    const location = [headers.location ?? []].flat()[0] ?? null;
    // Not worth retrying: the same address will redirect again until someone changes it.
    throw new DeliveryError(
      `answered ${statusCode} redirecting to ${redirectTarget(location, url)}; redirects are not followed, point WEBHOOK_URL at the final address`,
      { status: statusCode, retryable: false },
    );
  }
  const retryAfter = [headers["retry-after"] ?? []].flat()[0];
  throw new DeliveryError(`answered HTTP ${statusCode}`, {
    status: statusCode,
    retryable: retryableStatus(statusCode),
    ...(statusCode === 429 || statusCode === 503 ? { retryAfterMs: parseRetryAfter(retryAfter) } : {}),
  });
}

/** POSTs each brief as a `brief.received` event to `WEBHOOK_URL`; a 2xx answer is success. */
export class WebhookChannel implements Channel {
  readonly name = "webhook";
  private readonly signer: Webhook | null;

  constructor(
    private readonly url: string,
    secret: string | null,
  ) {
    this.signer = secret === null ? null : new Webhook(secret);
  }

  async deliver(notice: BriefNotice, signal: AbortSignal): Promise<number> {
    const body = briefReceivedBody(notice.record);
    // The id is the reference's, so a brief sent again carries the same one (see signatureHeaders).
    return postWebhook(this.url, this.signer, `msg_${notice.record.reference}`, body, signal);
  }
}

/** Where a redirect points, without its query (which may carry a token) for the delivery record. */
function redirectTarget(location: string | null, base: string): string {
  if (location === null) return "nowhere";
  try {
    const url = new URL(location, base);
    return `${url.origin}${url.pathname}`;
  } catch {
    return "an unreadable address";
  }
}
