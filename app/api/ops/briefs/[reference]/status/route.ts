import { validationFailed } from "@/lib/http/errors";
import { BRIEF_STATUSES, isBriefStatus, recordAudit, setStatus } from "@/lib/ops";
import { briefAction, readOpsFields } from "@/lib/ops-web/gate";
import { postOnly } from "@/lib/ops-web/respond";

/** POST /api/ops/briefs/<reference>/status: `{ status }`, one of new, handled, archived. */
export function POST(request: Request, { params }: { params: Promise<{ reference: string }> }) {
  return briefAction(request, params, async ({ services, actor }, brief) => {
    const { status } = await readOpsFields(request);
    if (!isBriefStatus(status)) throw validationFailed({ status: `Choose ${BRIEF_STATUSES.join(", ")}.` });
    const state = await setStatus(services.store, brief.folder, status, actor);
    const target = { reference: brief.record.reference, status };
    await recordAudit(services.store, { actor, action: "status", target });
    return { status: "saved", state: { status: state.status } };
  });
}

export const GET = postOnly;
