import { validationFailed } from "@/lib/http/errors";
import { addNote, noteProblem, recordAudit } from "@/lib/ops";
import { briefAction, readOpsFields } from "@/lib/ops-web/gate";
import { postOnly } from "@/lib/ops-web/respond";

/** POST /api/ops/briefs/<reference>/notes: `{ text }`, added with the signed-in address and the time. */
export function POST(request: Request, { params }: { params: Promise<{ reference: string }> }) {
  return briefAction(request, params, async ({ services, actor }, brief) => {
    const { text = "" } = await readOpsFields(request);
    const problem = noteProblem(text);
    if (problem) throw validationFailed({ text: problem });
    const state = await addNote(services.store, brief.folder, text, actor);
    await recordAudit(services.store, { actor, action: "note", target: brief.record.reference });
    return { status: "noted", notes: state.notes.length };
  });
}

export const GET = postOnly;
