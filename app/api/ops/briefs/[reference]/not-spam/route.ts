import { ApiError } from "@/lib/http/errors";
import { moveToInbox, recordAudit } from "@/lib/ops";
import { briefFromUrl, requireRouteSession } from "@/lib/ops-web/gate";
import { opsDone, opsFailed, postOnly } from "@/lib/ops-web/respond";

type Params = { params: Promise<{ reference: string }> };

/** POST /api/ops/briefs/<reference>/not-spam: moves a honeypot catch into the inbox as `new` and notifies the channels. */
export async function POST(request: Request, { params }: Params): Promise<Response> {
  const { reference } = await params;
  const back = `/inbox/${encodeURIComponent(reference)}`;
  try {
    const { services, actor } = await requireRouteSession(request, { mutation: true });
    const brief = await briefFromUrl(services, reference);
    if (brief.kind !== "spam") throw new ApiError("not_found", "This brief is not in spam.");
    const { delivery } = await moveToInbox(services, brief);
    await recordAudit(services.store, { actor, action: "not-spam", target: brief.record.reference });
    return opsDone(request, { status: "moved", delivery }, back);
  } catch (error) {
    return opsFailed(request, error, back);
  }
}

export const GET = postOnly;
