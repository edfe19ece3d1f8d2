import { errorResponse } from "@/lib/http/errors";
import { apiTransportSecurityHeaders } from "@/lib/http/security-headers";
import { downloadAttachment, requireBrief } from "@/lib/ops";
import { attachmentHeaders } from "@/lib/ops-web/download";
import { requireRouteSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";

type Params = { params: Promise<{ reference: string }> };

/**
 * GET /inbox/<reference>/attachment: the stored bytes exactly, streamed from either store, as a
 * download (`?inline` for the brief page's image: the same answer, audited as such).
 */
export async function GET(request: Request, { params }: Params): Promise<Response> {
  try {
    const { services, actor } = await requireRouteSession(request, getServices, { mutation: false });
    const brief = await requireBrief(services, (await params).reference);
    const inline = new URL(request.url).searchParams.has("inline");
    const { attachment, body } = await downloadAttachment(services, brief, { actor, inline });
    return new Response(body, {
      headers: { ...apiTransportSecurityHeaders(), ...attachmentHeaders(attachment) },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
