import { publicRoute } from "@/lib/http/public-route";
import { seeOther } from "@/lib/http/navigation";
import type { UnsubscribeAnswer } from "@/lib/http/responses";
import { cancelSubscription, LINK_BODY_LIMIT, linkPageLocation } from "@/lib/newsletter";
import { getServices } from "@/lib/services";

/**
 * POST /api/newsletter/unsubscribe?token=…: RFC 8058 one-click unsubscribe, the address every
 * email to a subscriber names in `List-Unsubscribe`. Mail providers post it from their servers
 * (`List-Unsubscribe=One-Click`, form-encoded or multipart, or an empty body): no origin check,
 * no per-client limit (the token is the authority), idempotent, and never a redirect for them.
 * The unsubscribe page's own button posts here too; without JavaScript it is sent back to the page.
 */
export const POST = publicRoute(
  {
    services: getServices,
    maxBodyBytes: LINK_BODY_LIMIT,
    failureLocation: (error) => linkPageLocation("unsubscribe", error),
  },
  async ({ request, services, readText, answerInJson }) => {
    const token = new URL(request.url).searchParams.get("token");
    // The body says nothing the token does not; it is read (under the cap) only to tell a mail
    // provider's one-click post, which RFC 8058 forbids answering with a redirect.
    if (/List-Unsubscribe/i.test(await readText())) answerInJson();

    const status = await cancelSubscription(services, token);

    return {
      body: { ok: true, status } satisfies UnsubscribeAnswer,
      location: linkPageLocation("unsubscribe", status),
    };
  },
);

/**
 * A mail client without one-click support opens the `List-Unsubscribe` address in a browser: it
 * is sent to the unsubscribe page, whose button asks first. A GET never changes anything.
 */
export function GET(request: Request): Response {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  return seeOther(`/newsletter/unsubscribe?token=${encodeURIComponent(token)}`);
}
