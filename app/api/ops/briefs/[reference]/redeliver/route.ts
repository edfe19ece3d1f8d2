import { redeliverOne, stillFailing } from "@/lib/ops";
import { briefAction } from "@/lib/ops-web/gate";
import { postOnly } from "@/lib/ops-web/respond";
import { getServices } from "@/lib/services";

/** POST /api/ops/briefs/<reference>/redeliver: the ops tool's `redeliver <reference>`, same code. */
export function POST(request: Request, { params }: { params: Promise<{ reference: string }> }) {
  return briefAction(request, params, getServices, async ({ services, actor }, brief) => {
    const result = await redeliverOne(services, brief, { actor });
    const status = stillFailing(result) ? "still-failing" : "redelivered";
    return { status, delivery: result.delivery, error: result.error };
  });
}

export const GET = postOnly(getServices);
