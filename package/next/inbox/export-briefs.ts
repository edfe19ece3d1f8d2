import { errorResponse } from "@/lib/http/errors";
import { apiTransportSecurityHeaders } from "@/lib/http/security-headers";
import { EXPORT_CSV_HEADER, exportBriefs, exportCsvRecord, parseFilter } from "@/lib/ops";
import { requireRouteSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";

/**
 * GET /inbox/export.csv?<the list's filters>: the ops tool's CSV of the briefs the list shows
 * (same columns, same code), streamed as it is read.
 */
export async function GET(request: Request): Promise<Response> {
  try {
    const { services, actor } = await requireRouteSession(request, getServices, { mutation: false });
    const filter = parseFilter(Object.fromEntries(new URL(request.url).searchParams));
    const briefs = await exportBriefs(services, filter, {
      actor,
      onProblem: (problem) => console.warn(`[ops] export skipped: ${problem.message}`),
    });
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(EXPORT_CSV_HEADER));
      },
      async pull(controller) {
        const next = await briefs.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(exportCsvRecord(next.value)));
      },
      async cancel() {
        await briefs.return(undefined);
      },
    });
    const day = new Date().toISOString().slice(0, 10);
    return new Response(body, {
      headers: {
        ...apiTransportSecurityHeaders(),
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="briefs-${day}.csv"`,
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-store",
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
