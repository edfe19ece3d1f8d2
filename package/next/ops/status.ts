import { changeStatus } from "@/lib/ops";
import { briefAction, readOpsFields } from "@/lib/ops-web/gate";
import { postOnly } from "@/lib/ops-web/respond";
import { getServices } from "@/lib/services";

/** POST /api/ops/briefs/<reference>/status: `{ status }`, one of new, handled, archived. */
export function POST(request: Request, { params }: { params: Promise<{ reference: string }> }) {
  return briefAction(request, params, getServices, async ({ services, actor }, brief) => {
    const { status } = await readOpsFields(request);
    const { state } = await changeStatus(services, brief, status, { actor });
    return { status: "saved", state: { status: state.status } };
  });
}

export const GET = postOnly(getServices);
