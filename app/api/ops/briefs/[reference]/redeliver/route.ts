import { ApiError } from "@/lib/http/errors";
import { recordAudit, redeliverBrief, stillFailing } from "@/lib/ops";
import { briefFromUrl, requireRouteSession } from "@/lib/ops-web/gate";
import { opsDone, opsFailed, postOnly } from "@/lib/ops-web/respond";

type Params = { params: Promise<{ reference: string }> };

/** POST /api/ops/briefs/<reference>/redeliver: the ops tool's `redeliver <reference>`, same code. */
export async function POST(request: Request, { params }: Params): Promise<Response> {
  const { reference } = await params;
  const back = `/inbox/${encodeURIComponent(reference)}`;
  try {
    const { services, actor } = await requireRouteSession(request, { mutation: true });
    const brief = await briefFromUrl(services, reference);
    if (brief.kind === "spam") throw new ApiError("not_found", "Spam is never redelivered.");
    const result = await redeliverBrief(services, brief);
    await recordAudit(services.store, { actor, action: "redeliver", target: brief.record.reference });
    const status = stillFailing(result) ? "still-failing" : "redelivered";
    return opsDone(request, { status, delivery: result.delivery, error: result.error }, back);
  } catch (error) {
    return opsFailed(request, error, back);
  }
}

export const GET = postOnly;
