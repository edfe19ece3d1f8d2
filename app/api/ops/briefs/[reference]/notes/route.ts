import { validationFailed } from "@/lib/http/errors";
import { addNote, noteProblem, recordAudit } from "@/lib/ops";
import { briefFromUrl, readOpsFields, requireRouteSession } from "@/lib/ops-web/gate";
import { opsDone, opsFailed, postOnly } from "@/lib/ops-web/respond";

type Params = { params: Promise<{ reference: string }> };

/** POST /api/ops/briefs/<reference>/notes: `{ text }`, added with the signed-in address and the time. */
export async function POST(request: Request, { params }: Params): Promise<Response> {
  const { reference } = await params;
  const back = `/inbox/${encodeURIComponent(reference)}`;
  try {
    const { services, actor } = await requireRouteSession(request, { mutation: true });
    const brief = await briefFromUrl(services, reference);
    const { text = "" } = await readOpsFields(request);
    const problem = noteProblem(text);
    if (problem) throw validationFailed({ text: problem });
    const state = await addNote(services.store, brief.folder, text, actor);
    await recordAudit(services.store, { actor, action: "note", target: brief.record.reference });
    return opsDone(request, { status: "noted", notes: state.notes.length }, back);
  } catch (error) {
    return opsFailed(request, error, back);
  }
}

export const GET = postOnly;
