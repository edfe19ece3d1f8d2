import { ApiError } from "@/lib/http/errors";
import { recordAudit, redeliverBrief, stillFailing } from "@/lib/ops";
import { briefAction } from "@/lib/ops-web/gate";
import { postOnly } from "@/lib/ops-web/respond";

/** POST /api/ops/briefs/<reference>/redeliver: the ops tool's `redeliver <reference>`, same code. */
export function POST(request: Request, { params }: { params: Promise<{ reference: string }> }) {
  return briefAction(request, params, async ({ services, actor }, brief) => {
    if (brief.kind === "spam") throw new ApiError("not_found", "Spam is never redelivered.");
    const result = await redeliverBrief(services, brief);
    await recordAudit(services.store, { actor, action: "redeliver", target: brief.record.reference });
    const status = stillFailing(result) ? "still-failing" : "redelivered";
    return { status, delivery: result.delivery, error: result.error };
  });
}

export const GET = postOnly;
