import { seeOther, wantsHtml } from "@/lib/http/navigation";
import { json } from "@/lib/http/errors";
import { assertSameOrigin, opsServices, readOpsFields } from "@/lib/ops-web/gate";
import { opsFailed, postOnly } from "@/lib/ops-web/respond";
import { safeNext, sessionCookie, startSession } from "@/lib/ops-web/sign-in";
import { getServices } from "@/lib/services";

/**
 * POST /api/ops/session: the confirmation page's button, `{ token, next? }`. Spends the emailed
 * link (once) and starts a session: the cookie, and `signed-in` or a 303 to `next` (under
 * `/inbox` only). A spent, expired or tampered link is 422 `fields.token`.
 */
export async function POST(request: Request): Promise<Response> {
  const fields: Record<string, string> = {};
  try {
    const { services, ops } = opsServices(getServices);
    assertSameOrigin(request, services);
    Object.assign(fields, await readOpsFields(request));
    const session = await startSession(ops, services.config, services.store, fields.token);
    const cookie = { "Set-Cookie": sessionCookie(session.id) };
    if (wantsHtml(request)) return seeOther(safeNext(fields.next), cookie);
    return json({ ok: true, status: "signed-in" }, { headers: cookie });
  } catch (error) {
    return opsFailed(request, error, "/inbox/sign-in/confirm");
  }
}

export const GET = postOnly(getServices);
