import { hashClientAddress } from "@/lib/http/client-address";
import { requestSite } from "@/lib/http/origin";
import { publicRoute } from "@/lib/http/public-route";
import type { SubscriptionAnswer } from "@/lib/http/responses";
import {
  NEWSLETTER_BODY_LIMIT,
  newsletterLocation,
  parseSubscription,
  parseSubscriptionForm,
  requestSubscription,
} from "@/lib/newsletter";
import { getServices } from "@/lib/services";
import { requireHuman, tokenFromFormEncoded, tokenFromJson } from "@/lib/verification";

/**
 * POST /api/newsletter: subscribes an address (JSON), idempotently, with optional topics; with
 * double opt-in, stores it pending and emails a confirmation link. A browser posting the footer
 * form without JavaScript may send it form-encoded and is redirected to a page. The record keeps
 * the consent's evidence: the form's page, where the request came from (a cross-site one is held
 * to double opt-in when email is set up), the client's salted address hash, the human check.
 */
export const POST = publicRoute(
  {
    services: getServices,
    // No origin check: the contract keeps that rule to the contact form.
    limiter: (services) => services.limiters.newsletter,
    maxBodyBytes: NEWSLETTER_BODY_LIMIT,
    mediaType: "application/json",
    acceptsNativeForm: true,
    failureLocation: newsletterLocation,
  },
  async ({ services, request, address, nativeForm, readText }) => {
    const body = await readText();
    const subscription = nativeForm ? parseSubscriptionForm(body) : parseSubscription(body);
    const verification = await requireHuman(services.verifier, {
      token: nativeForm ? tokenFromFormEncoded(body) : tokenFromJson(body),
      action: "newsletter",
      remoteIp: address,
    });
    const ipHash = hashClientAddress(address, services.ipHashSalt);
    const site = requestSite(request.headers, services.config);
    const status = await requestSubscription(services, { ...subscription, verification, ipHash, site });

    return {
      body: { ok: true, status } satisfies SubscriptionAnswer,
      location: newsletterLocation(status),
    };
  },
);
