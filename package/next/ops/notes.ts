import { addBriefNote } from "@/lib/ops";
import { briefAction, readOpsFields } from "@/lib/ops-web/gate";
import { postOnly } from "@/lib/ops-web/respond";
import { getServices } from "@/lib/services";

/** POST /api/ops/briefs/<reference>/notes: `{ text }`, added with the signed-in address and the time. */
export function POST(request: Request, { params }: { params: Promise<{ reference: string }> }) {
  return briefAction(request, params, getServices, async ({ services, actor }, brief) => {
    const { text = "" } = await readOpsFields(request);
    const state = await addBriefNote(services, brief, text, { actor });
    return { status: "noted", notes: state.notes.length };
  });
}

export const GET = postOnly(getServices);
