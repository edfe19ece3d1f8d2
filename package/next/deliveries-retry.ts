import { RETRY_BODY_LIMIT, retryFromQStash } from "@/lib/deliveries";
import { assertDeclaredSize, readText } from "@/lib/http/body";
import { ApiError, errorResponse, json } from "@/lib/http/errors";
import type { RetryAnswer } from "@/lib/http/responses";
import { getServices } from "@/lib/services";

/**
 * POST /api/deliveries/retry: Upstash QStash calling back when a delivery retry it was given is
 * due. 404 while QStash is not configured; then size -> signature (401) -> message (400, 422) ->
 * the attempt, if still due -> 200 `{ ok, attempted }` (a stale message is a no-op), or 503 when
 * the store does not answer, so QStash sends it again. No origin check or rate limit: only QStash
 * holds the signing keys, and the signature covers this URL and the body.
 */
export async function POST(request: Request): Promise<Response> {
  try {
    const { deliveries, retryMessages } = getServices();
    if (retryMessages === null) throw new ApiError("not_found");
    assertDeclaredSize(request, RETRY_BODY_LIMIT);
    const body = await readText(request, RETRY_BODY_LIMIT);
    const signature = request.headers.get("upstash-signature");
    const { attempted } = await retryFromQStash({ messages: retryMessages, deliveries }, signature, body);
    return json({ ok: true, attempted } satisfies RetryAnswer);
  } catch (error) {
    return errorResponse(error);
  }
}
