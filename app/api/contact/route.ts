import {
  acceptsStagedUploads,
  AttachmentIntake,
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
import type { BriefReceived } from "@/lib/http/responses";
import { isCrossOrigin } from "@/lib/http/origin";
import { enforceRateLimit } from "@/lib/ratelimit";
import { getServices } from "@/lib/services";
import { requireHuman, tokenFromMultipart } from "@/lib/verification";

/**
 * POST /api/contact: a project brief as multipart form data, with an optional file. Scripts get
 * JSON; a browser posting the form without JavaScript is redirected to the next page.
 */
export async function POST(request: Request): Promise<Response> {
  const navigating = wantsHtml(request);
  let rateLimitHeaders: Record<string, string> = {};
  // The file streams to the store as it arrives; whatever no brief committed is removed at the end.
  let intake: AttachmentIntake | null = null;
  try {
    const services = getServices();
    const { config } = services;

    if (isCrossOrigin(request.headers, config)) throw new ApiError("cross_origin");

    const address = clientAddress(request.headers, config.trustedProxyHops);
    rateLimitHeaders = await enforceRateLimit(services.limiters.contact, rateLimitSubject(address));

    assertDeclaredSize(request, CONTACT_BODY_LIMIT);
    assertMediaType(request, "multipart/form-data");
    intake = new AttachmentIntake(services.store);
    const form = await readMultipart(request, CONTACT_FORM_LIMITS, intake.open);

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

    if (navigating) return seeOther(thankYouLocation(reference), rateLimitHeaders);
    const body = { ok: true, reference, stored: true, forwarded } satisfies BriefReceived;
    return json(body, { headers: rateLimitHeaders });
  } catch (error) {
    if (navigating) return seeOther(contactFormLocation(toApiError(error)), rateLimitHeaders);
    return errorResponse(error, rateLimitHeaders);
  } finally {
    await intake?.discard();
  }
}
