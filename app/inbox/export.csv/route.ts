import { apiTransportSecurityHeaders } from "@/lib/http/security-headers";
import { EXPORT_CSV_HEADER, exportCsvRecord, filteredBriefs, parseFilter, recordAudit } from "@/lib/ops";
import { requireRouteSession } from "@/lib/ops-web/gate";
import { opsErrorResponse } from "@/lib/ops-web/respond";

/**
 * GET /inbox/export.csv?<the list's filters>: the ops tool's CSV of the briefs the list shows
 * (same columns, same code), streamed as it is read.
 */
export async function GET(request: Request): Promise<Response> {
  try {
    const { services, actor } = await requireRouteSession(request, { mutation: false });
    const url = new URL(request.url);
    const filter = parseFilter(Object.fromEntries(url.searchParams));
    // The search text may be someone's address: the log says a search was made, never its text,
    // so erasing an address leaves nothing of it here either.
    const { status, from, to, q } = filter;
    await recordAudit(services.store, {
      actor,
      action: "export",
      target: { status, from, to, search: q === null ? null : "not recorded" },
    });
    const briefs = filteredBriefs(services.store, "briefs", filter, {
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
    return opsErrorResponse(error);
  }
}
