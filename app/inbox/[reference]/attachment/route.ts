import { ApiError } from "@/lib/http/errors";
import { apiTransportSecurityHeaders } from "@/lib/http/security-headers";
import { openAttachment, recordAudit } from "@/lib/ops";
import { attachmentHeaders } from "@/lib/ops-web/download";
import { briefFromUrl, requireRouteSession } from "@/lib/ops-web/gate";
import { opsErrorResponse } from "@/lib/ops-web/respond";

type Params = { params: Promise<{ reference: string }> };

/**
 * GET /inbox/<reference>/attachment: the stored bytes exactly, streamed from either store, as a
 * download (`?inline` for the brief page's image: the same answer, audited as such).
 */
export async function GET(request: Request, { params }: Params): Promise<Response> {
  try {
    const { services, actor } = await requireRouteSession(request, { mutation: false });
    const brief = await briefFromUrl(services, (await params).reference);
    const { attachment, reference } = brief.record;
    if (!attachment) throw new ApiError("not_found", "This brief has no attachment.");
    const body = await openAttachment(services.store, brief);
    const inline = new URL(request.url).searchParams.has("inline");
    await recordAudit(services.store, {
      actor,
      action: "download",
      target: inline ? { reference, shown: "inline" } : reference,
    });
    return new Response(body, {
      headers: { ...apiTransportSecurityHeaders(), ...attachmentHeaders(attachment) },
    });
  } catch (error) {
    return opsErrorResponse(error);
  }
}
