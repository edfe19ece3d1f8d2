import { validationFailed } from "@/lib/http/errors";
import { BRIEF_STATUSES, isBriefStatus, recordAudit, setStatus } from "@/lib/ops";
import { briefFromUrl, readOpsFields, requireRouteSession } from "@/lib/ops-web/gate";
import { opsDone, opsFailed, postOnly } from "@/lib/ops-web/respond";

type Params = { params: Promise<{ reference: string }> };

/** POST /api/ops/briefs/<reference>/status: `{ status }`, one of new, handled, archived. */
export async function POST(request: Request, { params }: Params): Promise<Response> {
  const { reference } = await params;
  const back = `/inbox/${encodeURIComponent(reference)}`;
  try {
    const { services, actor } = await requireRouteSession(request, { mutation: true });
    const brief = await briefFromUrl(services, reference);
    const { status } = await readOpsFields(request);
    if (!isBriefStatus(status)) throw validationFailed({ status: `Choose ${BRIEF_STATUSES.join(", ")}.` });
    const state = await setStatus(services.store, brief.folder, status, actor);
    await recordAudit(services.store, {
      actor,
      action: "status",
      target: { reference: brief.record.reference, status },
    });
    return opsDone(request, { status: "saved", state: { status: state.status } }, back);
  } catch (error) {
    return opsFailed(request, error, back);
  }
}

export const GET = postOnly;
