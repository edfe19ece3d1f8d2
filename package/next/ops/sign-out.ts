import { recordAudit } from "@/lib/ops";
import { requireRouteSession } from "@/lib/ops-web/gate";
import { opsDone, opsFailed, postOnly } from "@/lib/ops-web/respond";
import { sessionCookie } from "@/lib/ops-web/sign-in";
import { getServices } from "@/lib/services";

/** POST /api/ops/sign-out (any body or none): ends the session on the server at once. */
export async function POST(request: Request): Promise<Response> {
  try {
    const { services, ops, actor, sessionHash } = await requireRouteSession(request, getServices, {
      mutation: true,
    });
    await ops.sessions.end(sessionHash, actor);
    await recordAudit(services.store, { actor, action: "sign-out", target: null });
    return opsDone(request, { status: "signed-out" }, "/inbox/sign-in", {
      "Set-Cookie": sessionCookie(null),
    });
  } catch (error) {
    return opsFailed(request, error, null);
  }
}

export const GET = postOnly(getServices);
