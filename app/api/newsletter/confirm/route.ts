import { assertDeclaredSize, assertMediaType, mediaType, readText } from "@/lib/http/body";
import { clientAddress, rateLimitSubject } from "@/lib/http/client-address";
import { errorResponse, json, toApiError } from "@/lib/http/errors";
import { seeOther, wantsHtml } from "@/lib/http/navigation";
import type { ConfirmationAnswer } from "@/lib/http/responses";
import {
  confirmSubscription,
  LINK_BODY_LIMIT,
  linkPageLocation,
  parseTokenForm,
  parseTokenRequest,
} from "@/lib/newsletter";
import { enforceRateLimit } from "@/lib/ratelimit";
import { getServices } from "@/lib/services";

const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";

/**
 * POST /api/newsletter/confirm: the confirmation page's button, `{ token }` as JSON, or its form
 * posted without JavaScript (answered with a redirect back to the page). Only this POST confirms:
 * opening the emailed link (a GET, as a link scanner does) changes nothing.
 */
export async function POST(request: Request): Promise<Response> {
  const navigating = wantsHtml(request);
  let rateLimitHeaders: Record<string, string> = {};
  try {
    const services = getServices();

    // No origin check: the signed token is the authority, wherever it is posted from.
    const address = clientAddress(request.headers, services.config.trustedProxyHops);
    rateLimitHeaders = await enforceRateLimit(services.limiters.confirm, rateLimitSubject(address));

    assertDeclaredSize(request, LINK_BODY_LIMIT);
    const nativeForm = navigating && mediaType(request) === FORM_MEDIA_TYPE;
    if (!nativeForm) assertMediaType(request, "application/json");
    const body = await readText(request, LINK_BODY_LIMIT);

    const token = nativeForm ? parseTokenForm(body) : parseTokenRequest(body);
    const status = await confirmSubscription(services, token);

    if (navigating) return seeOther(linkPageLocation("confirm", status), rateLimitHeaders);
    return json({ ok: true, status } satisfies ConfirmationAnswer, { headers: rateLimitHeaders });
  } catch (error) {
    if (navigating) return seeOther(linkPageLocation("confirm", toApiError(error)), rateLimitHeaders);
    return errorResponse(error, rateLimitHeaders);
  }
}
