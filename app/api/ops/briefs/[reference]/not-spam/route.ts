import { ApiError } from "@/lib/http/errors";
import { moveToInbox, recordAudit } from "@/lib/ops";
import { briefAction } from "@/lib/ops-web/gate";
import { postOnly } from "@/lib/ops-web/respond";

/** POST /api/ops/briefs/<reference>/not-spam: moves a honeypot catch into the inbox as `new` and notifies the channels. */
export function POST(request: Request, { params }: { params: Promise<{ reference: string }> }) {
  return briefAction(request, params, async ({ services, actor }, brief) => {
    if (brief.kind !== "spam") throw new ApiError("not_found", "This brief is not in spam.");
    const { delivery } = await moveToInbox(services, brief);
    await recordAudit(services.store, { actor, action: "not-spam", target: brief.record.reference });
    return { status: "moved", delivery };
  });
}

export const GET = postOnly;
