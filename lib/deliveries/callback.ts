import { ApiError, validationFailed } from "../http/errors";
import { Deadline } from "../store";
import type { Deliveries } from "./deliveries";
import type { RetryMessages } from "./qstash";

/** A retry message is `{ reference, channel }`: a few dozen bytes, so anything past this is not one. */
export const RETRY_BODY_LIMIT = 4 * 1024;

/**
 * Claiming the due record shares this bound, within the 10 s a Vercel function gets by default: a
 * store that hangs is answered 503 (QStash tries again) before the platform cuts the call off.
 */
const CLAIM_DEADLINE_MS = 8_000;

/**
 * QStash's call to `POST /api/deliveries/retry`: the message is taken only with a valid
 * `Upstash-Signature` for this body (401), read as `{ reference, channel }` (400, 422), and the
 * attempt it names made if it is still due and nobody else holds it. Answers whether an attempt
 * was made: a stale message (the channel delivered, given up, erased, rescheduled, or under way
 * elsewhere) is a no-op, not a failure, so QStash does not send it again. A store that does not
 * answer rejects with `StoreUnavailableError` (503: QStash sends it again later).
 *
 * A validly signed body that is not a retry message is refused (4xx) rather than dropped with a
 * 200: QStash then keeps it in its log and, after its own retries, in its dead-letter queue, where
 * ops can see it; a 200 would hide the only trace of a publisher that sends what we cannot read.
 */
export async function retryFromQStash(
  { messages, deliveries }: { messages: RetryMessages; deliveries: Deliveries },
  signature: string | null,
  body: string,
): Promise<{ attempted: boolean }> {
  const message = await messages.read(signature, body);
  if (!message.valid) {
    if (message.why === "signature") {
      throw new ApiError("unauthorized", "This endpoint takes only messages signed by QStash.");
    }
    console.warn(`[delivery] a signed QStash message is not a retry (${message.why}); refused`);
    throw message.why === "fields"
      ? validationFailed(message.fields)
      : new ApiError("malformed_body", "The message could not be read: it is not JSON.");
  }
  const { options } = Deadline.in(CLAIM_DEADLINE_MS);
  const result = await deliveries.attemptIfDue(message.reference, message.channel, options);
  return { attempted: result.made };
}
