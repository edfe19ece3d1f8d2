import { assertDeclaredSize, assertMediaType, readText } from "@/lib/http/body";
import { clientAddress, rateLimitSubject } from "@/lib/http/client-address";
import { errorResponse, json } from "@/lib/http/errors";
import { NEWSLETTER_BODY_LIMIT, parseSubscription, subscribe } from "@/lib/newsletter";
import { enforceRateLimit } from "@/lib/ratelimit";
import { getServices } from "@/lib/services";

/** POST /api/newsletter: subscribes an address (JSON), idempotently, with optional topics. */
export async function POST(request: Request): Promise<Response> {
  let rateLimitHeaders: Record<string, string> = {};
  try {
    const services = getServices();

    // No origin check: the contract keeps that rule to the contact form.
    const address = clientAddress(request.headers, services.config.trustedProxyHops);
    rateLimitHeaders = await enforceRateLimit(services.limiters.newsletter, rateLimitSubject(address));

    assertDeclaredSize(request, NEWSLETTER_BODY_LIMIT);
    assertMediaType(request, "application/json");
    const body = await readText(request, NEWSLETTER_BODY_LIMIT);

    const subscription = parseSubscription(body);
    const status = await subscribe(services.store, subscription);

    return json({ ok: true, status }, { headers: rateLimitHeaders });
  } catch (error) {
    return errorResponse(error, rateLimitHeaders);
  }
}
