import { recordAudit } from "@/lib/ops";
import { requireRouteSession } from "@/lib/ops-web/gate";
import { opsDone, opsFailed, postOnly } from "@/lib/ops-web/respond";
import { endEverySession, sessionCookie } from "@/lib/ops-web/sign-in";
import { getServices } from "@/lib/services";

/**
 * POST /api/ops/sign-out/everywhere (any body or none): ends every session of the signed-in
 * address at once, this one and those in other browsers; audited as a `sign-out` with the count.
 */
export async function POST(request: Request): Promise<Response> {
  try {
    const { services, ops, actor, sessionHash } = await requireRouteSession(request, getServices, {
      mutation: true,
    });
    const ended = await endEverySession(ops, actor, sessionHash);
    const target = `everywhere (${ended} ${ended === 1 ? "session" : "sessions"})`;
    await recordAudit(services.store, { actor, action: "sign-out", target });
    return opsDone(request, { status: "signed-out" }, "/inbox/sign-in", {
      "Set-Cookie": sessionCookie(null),
    });
  } catch (error) {
    return opsFailed(request, error, null);
  }
}

export const GET = postOnly(getServices);
