import { assertDeclaredSize, assertMediaType, mediaType, readText } from "@/lib/http/body";
import { clientAddress, rateLimitSubject } from "@/lib/http/client-address";
import { errorResponse, json, toApiError } from "@/lib/http/errors";
import { seeOther, wantsHtml } from "@/lib/http/navigation";
import type { SubscriptionAnswer } from "@/lib/http/responses";
import {
  NEWSLETTER_BODY_LIMIT,
  newsletterLocation,
  parseSubscription,
  parseSubscriptionForm,
  requestSubscription,
} from "@/lib/newsletter";
import { enforceRateLimit } from "@/lib/ratelimit";
import { getServices } from "@/lib/services";
import { requireHuman, tokenFromFormEncoded, tokenFromJson } from "@/lib/verification";

const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";

/**
 * POST /api/newsletter: subscribes an address (JSON), idempotently, with optional topics; with
 * double opt-in, stores it pending and emails a confirmation link. A browser posting the footer
 * form without JavaScript may send it form-encoded and is redirected to a page.
 */
export async function POST(request: Request): Promise<Response> {
  const navigating = wantsHtml(request);
  let rateLimitHeaders: Record<string, string> = {};
  try {
    const services = getServices();

    // No origin check: the contract keeps that rule to the contact form.
    const address = clientAddress(request.headers, services.config.trustedProxyHops);
    rateLimitHeaders = await enforceRateLimit(services.limiters.newsletter, rateLimitSubject(address));

    assertDeclaredSize(request, NEWSLETTER_BODY_LIMIT);
    const nativeForm = navigating && mediaType(request) === FORM_MEDIA_TYPE;
    if (!nativeForm) assertMediaType(request, "application/json");
    const body = await readText(request, NEWSLETTER_BODY_LIMIT);

    const subscription = nativeForm ? parseSubscriptionForm(body) : parseSubscription(body);
    const verification = await requireHuman(services.verifier, {
      token: nativeForm ? tokenFromFormEncoded(body) : tokenFromJson(body),
      action: "newsletter",
      remoteIp: address,
    });
    const status = await requestSubscription(services, { ...subscription, verification });

    if (navigating) return seeOther(newsletterLocation(status), rateLimitHeaders);
    return json({ ok: true, status } satisfies SubscriptionAnswer, { headers: rateLimitHeaders });
  } catch (error) {
    if (navigating) return seeOther(newsletterLocation(toApiError(error)), rateLimitHeaders);
    return errorResponse(error, rateLimitHeaders);
  }
}
