import { clientAddress, rateLimitSubject } from "@/lib/http/client-address";
import { assertSameOrigin, opsServices, readOpsFields } from "@/lib/ops-web/gate";
import { opsDone, opsFailed, postOnly } from "@/lib/ops-web/respond";
import { parseSignInEmail, requestSignInLink } from "@/lib/ops-web/sign-in";
import { enforceRateLimit } from "@/lib/ratelimit";
import { requireHuman, TOKEN_FIELD } from "@/lib/verification";
import { getServices } from "@/lib/services";

/**
 * POST /api/ops/sign-in: `{ email }` (JSON or a form post). Every valid address gets the same
 * answer, `link-sent`, after the same work; only a listed one is emailed a link, after the answer.
 * 5 requests per 15 minutes per client (429); an address's own budget of links never answers.
 */
export async function POST(request: Request): Promise<Response> {
  let headers: Record<string, string> = {};
  try {
    const { services, ops } = opsServices(getServices);
    assertSameOrigin(request, services);
    const address = clientAddress(request.headers, services.config.trustedProxyHops);
    headers = await enforceRateLimit(ops.limits.client, rateLimitSubject(address));

    const fields = await readOpsFields(request);
    const email = parseSignInEmail(fields);
    await requireHuman(services.verifier, {
      token: fields[TOKEN_FIELD] || null,
      action: "ops-sign-in",
      remoteIp: address,
    });
    requestSignInLink(ops, services.config, email, fields.next ?? "/inbox");

    return opsDone(request, { status: "link-sent" }, "/inbox/sign-in", headers);
  } catch (error) {
    return opsFailed(request, error, "/inbox/sign-in", headers);
  }
}

export const GET = postOnly(getServices);
