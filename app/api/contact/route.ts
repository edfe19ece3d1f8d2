import {
  CONTACT_BODY_LIMIT,
  CONTACT_FORM_LIMITS,
  describeClient,
  receiveBrief,
  validateSubmission,
} from "@/lib/contact";
import { assertDeclaredSize, assertMediaType, readMultipart } from "@/lib/http/body";
import { clientAddress, rateLimitSubject } from "@/lib/http/client-address";
import { ApiError, errorResponse, json } from "@/lib/http/errors";
import { isCrossOrigin } from "@/lib/http/origin";
import { enforceRateLimit } from "@/lib/ratelimit";
import { getServices } from "@/lib/services";

/** POST /api/contact: a project brief as multipart form data, with an optional file. */
export async function POST(request: Request): Promise<Response> {
  let rateLimitHeaders: Record<string, string> = {};
  try {
    const services = getServices();
    const { config } = services;

    if (isCrossOrigin(request.headers, config)) throw new ApiError("cross_origin");

    const address = clientAddress(request.headers, config.trustedProxyHops);
    rateLimitHeaders = await enforceRateLimit(services.limiters.contact, rateLimitSubject(address));

    assertDeclaredSize(request, CONTACT_BODY_LIMIT);
    assertMediaType(request, "multipart/form-data");
    const form = await readMultipart(request, CONTACT_FORM_LIMITS);

    const submission = await validateSubmission(form);
    const client = describeClient(request, address, services.ipHashSalt);
    const { reference, forwarded } = await receiveBrief(services, submission, client);

    return json({ ok: true, reference, stored: true, forwarded }, { headers: rateLimitHeaders });
  } catch (error) {
    return errorResponse(error, rateLimitHeaders);
  }
}
