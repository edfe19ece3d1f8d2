import { errorResponse, validationFailed } from "@/lib/http/errors";
import { apiTransportSecurityHeaders } from "@/lib/http/security-headers";
import { exportPerson } from "@/lib/ops";
import { readOpsFields, requireRouteSession } from "@/lib/ops-web/gate";
import { postOnly } from "@/lib/ops-web/respond";
import { email as emailRule } from "@/lib/schemas/text";
import { getServices } from "@/lib/services";

/**
 * POST /inbox/person.json: `email` (a form post or JSON) -> what the inbox holds about that address,
 * as a JSON file to save (the right of access). A POST, so the address of someone asking to be
 * forgotten never sits in a URL, a history or a request log. Audited as `export-person` by the
 * address's SHA-256.
 */
export async function POST(request: Request): Promise<Response> {
  try {
    const { services, actor } = await requireRouteSession(request, getServices, { mutation: true });
    const fields = await readOpsFields(request);
    const email = emailRule.safeParse(fields.email);
    if (!email.success) throw validationFailed({ email: "Type the address whose data to download." });
    const now = new Date();
    const data = await exportPerson(services, email.data, {
      actor,
      now,
      onProblem: (problem) => console.warn(`[ops] person export skipped: ${problem.message}`),
    });
    return new Response(`${JSON.stringify(data, null, 2)}\n`, {
      headers: {
        ...apiTransportSecurityHeaders(),
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="person-${now.toISOString().slice(0, 10)}.json"`,
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-store",
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}

export const GET = postOnly(getServices);
