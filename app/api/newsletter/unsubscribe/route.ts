import { assertDeclaredSize, readText } from "@/lib/http/body";
import { errorResponse, json, toApiError } from "@/lib/http/errors";
import { seeOther, wantsHtml } from "@/lib/http/navigation";
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
export async function POST(request: Request): Promise<Response> {
  let navigating = wantsHtml(request);
  try {
    const services = getServices();
    const token = new URL(request.url).searchParams.get("token");

    assertDeclaredSize(request, LINK_BODY_LIMIT);
    // The body says nothing the token does not; it is read (under the cap) only to tell a mail
    // provider's one-click post, which RFC 8058 forbids answering with a redirect.
    const body = await readText(request, LINK_BODY_LIMIT);
    if (/List-Unsubscribe/i.test(body)) navigating = false;

    const status = await cancelSubscription(services, token);

    if (navigating) return seeOther(linkPageLocation("unsubscribe", status));
    return json({ ok: true, status } satisfies UnsubscribeAnswer);
  } catch (error) {
    if (navigating) return seeOther(linkPageLocation("unsubscribe", toApiError(error)));
    return errorResponse(error);
  }
}

/**
 * A mail client without one-click support opens the `List-Unsubscribe` address in a browser: it
 * is sent to the unsubscribe page, whose button asks first. A GET never changes anything.
 */
export function GET(request: Request): Response {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  return seeOther(`/newsletter/unsubscribe?token=${encodeURIComponent(token)}`);
}
