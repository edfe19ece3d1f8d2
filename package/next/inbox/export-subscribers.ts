import { errorResponse } from "@/lib/http/errors";
import { apiTransportSecurityHeaders } from "@/lib/http/security-headers";
import {
  exportSubscribers,
  parseSubscriberFilter,
  SUBSCRIBERS_CSV_HEADER,
  subscriberCsvRecord,
} from "@/lib/ops";
import { requireRouteSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";

/**
 * GET /inbox/subscribers/export.csv?<the list's filters>: the ops tool's `subscribers --csv` (same
 * columns, same code) of every subscriber the list shows, audited as `export-subscribers`.
 */
export async function GET(request: Request): Promise<Response> {
  try {
    const { services, actor } = await requireRouteSession(request, getServices, { mutation: false });
    const filter = parseSubscriberFilter(Object.fromEntries(new URL(request.url).searchParams));
    const subscribers = await exportSubscribers(services, filter, {
      actor,
      onProblem: (problem) => console.warn(`[ops] export skipped: ${problem.message}`),
    });
    const body = SUBSCRIBERS_CSV_HEADER + subscribers.map(subscriberCsvRecord).join("");
    const day = new Date().toISOString().slice(0, 10);
    return new Response(body, {
      headers: {
        ...apiTransportSecurityHeaders(),
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="subscribers-${day}.csv"`,
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-store",
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
