import { validationFailed } from "@/lib/http/errors";
import { eraseAddress } from "@/lib/ops";
import { readOpsFields, requireRouteSession } from "@/lib/ops-web/gate";
import { opsDone, opsFailed, postOnly } from "@/lib/ops-web/respond";
import { email as emailRule } from "@/lib/schemas/text";
import { getServices } from "@/lib/services";

/**
 * POST /api/ops/erase: `{ email, confirm }`, the address typed twice. Removes every file of the
 * address's briefs and spam entries, and its subscriber record; the audit log keeps only the
 * address's SHA-256 and the counts.
 */
export async function POST(request: Request): Promise<Response> {
  try {
    const { services, actor } = await requireRouteSession(request, getServices, { mutation: true });
    const fields = await readOpsFields(request);
    const email = emailRule.safeParse(fields.email);
    if (!email.success) throw validationFailed({ email: "Type the address to erase." });
    const result = await eraseAddress(
      services,
      { email: email.data, confirm: fields.confirm ?? "" },
      { actor },
    );
    const counts = `briefs=${result.briefs}&spam=${result.spam}&subscribers=${result.subscribers}`;
    return opsDone(request, { status: "erased", ...result }, `/inbox/erase?${counts}`);
  } catch (error) {
    return opsFailed(request, error, "/inbox/erase");
  }
}

export const GET = postOnly(getServices);
