import {
  acceptsStagedUploads,
  CONTACT_BODY_LIMIT,
  CONTACT_FORM_LIMITS,
  contactFormLocation,
  describeClient,
  receiveBrief,
  thankYouLocation,
  validateSubmission,
} from "@/lib/contact";
import { assertDeclaredSize, assertMediaType, readMultipart } from "@/lib/http/body";
import { clientAddress, rateLimitSubject } from "@/lib/http/client-address";
import { ApiError, errorResponse, json, toApiError } from "@/lib/http/errors";
import { seeOther, wantsHtml } from "@/lib/http/navigation";
import { isCrossOrigin } from "@/lib/http/origin";
import { transportSecurityHeaders } from "@/lib/http/security-headers";
import { enforceRateLimit } from "@/lib/ratelimit";
import { getServices } from "@/lib/services";
import { requireHuman, tokenFromMultipart } from "@/lib/verification";

/**
 * POST /api/contact: a project brief as multipart form data, with an optional file. Scripts get
 * JSON; a browser posting the form without JavaScript is redirected to the next page.
 */
export async function POST(request: Request): Promise<Response> {
  const navigating = wantsHtml(request);
  // HSTS here, not from the proxy: no proxy may stand in front of this route's body.
  let headers: Record<string, string> = {};
  try {
    const services = getServices();
    const { config } = services;
    headers = transportSecurityHeaders(config.siteOrigin);

    if (isCrossOrigin(request.headers, config)) throw new ApiError("cross_origin");

    const address = clientAddress(request.headers, config.trustedProxyHops);
    headers = {
      ...headers,
      ...(await enforceRateLimit(services.limiters.contact, rateLimitSubject(address))),
    };

    assertDeclaredSize(request, CONTACT_BODY_LIMIT);
    assertMediaType(request, "multipart/form-data");
    const form = await readMultipart(request, CONTACT_FORM_LIMITS);

    const submission = await validateSubmission(
      form,
      acceptsStagedUploads(services.store) ? services.store : null,
    );
    const verification = await requireHuman(services.verifier, {
      token: tokenFromMultipart(form),
      action: "contact",
      remoteIp: address,
    });
    const client = describeClient(request, address, services.ipHashSalt);
    const { reference, forwarded } = await receiveBrief(services, submission, client, verification);

    if (navigating) return seeOther(thankYouLocation(reference), headers);
    return json({ ok: true, reference, stored: true, forwarded }, { headers });
  } catch (error) {
    if (navigating) return seeOther(contactFormLocation(toApiError(error)), headers);
    return errorResponse(error, headers);
  }
}
