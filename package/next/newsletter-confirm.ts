import { publicRoute } from "@/lib/http/public-route";
import type { ConfirmationAnswer } from "@/lib/http/responses";
import {
  confirmSubscription,
  LINK_BODY_LIMIT,
  linkPageLocation,
  parseTokenForm,
  parseTokenRequest,
} from "@/lib/newsletter";
import { getServices } from "@/lib/services";

/**
 * POST /api/newsletter/confirm: the confirmation page's button, `{ token }` as JSON, or its form
 * posted without JavaScript (answered with a redirect back to the page). Only this POST confirms:
 * opening the emailed link (a GET, as a link scanner does) changes nothing.
 */
export const POST = publicRoute(
  {
    services: getServices,
    // No origin check: the signed token is the authority, wherever it is posted from.
    limiter: (services) => services.limiters.confirm,
    maxBodyBytes: LINK_BODY_LIMIT,
    mediaType: "application/json",
    acceptsNativeForm: true,
    failureLocation: (error) => linkPageLocation("confirm", error),
  },
  async ({ services, nativeForm, readText }) => {
    const body = await readText();
    const token = nativeForm ? parseTokenForm(body) : parseTokenRequest(body);
    const status = await confirmSubscription(services, token);

    return {
      body: { ok: true, status } satisfies ConfirmationAnswer,
      location: linkPageLocation("confirm", status),
    };
  },
);
