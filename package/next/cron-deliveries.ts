import { hasBearer } from "@/lib/http/bearer";
import { ApiError, errorResponse, json } from "@/lib/http/errors";
import type { DeliveriesRunBody } from "@/lib/http/responses";
import { getServices } from "@/lib/services";

/**
 * One run's bound, so the answer comes within 8 s (inside the 10 s a Vercel function gets by
 * default): what is left waits for the next run, and an attempt under way then finishes in
 * `after()` under its own claim, not waited for.
 */
const RUN_MS = 7_500;

/**
 * GET /api/cron/deliveries: every due delivery attempt this call can claim within 8 s, for a
 * scheduler that can only call a URL (Vercel Cron sends `Authorization: Bearer <CRON_SECRET>`).
 * Makes only what a due record says is due, nothing else. 404 while `CRON_SECRET` is not set; 401
 * without its token.
 */
export async function GET(request: Request): Promise<Response> {
  try {
    const { config, deliveries } = getServices();
    if (config.cronSecret === null) throw new ApiError("not_found");
    if (!hasBearer(request, config.cronSecret)) {
      throw new ApiError("unauthorized", "This job needs Authorization: Bearer <CRON_SECRET>.", {
        headers: { "WWW-Authenticate": 'Bearer realm="cron"' },
      });
    }
    const counts = await deliveries.runDue({ signal: AbortSignal.timeout(RUN_MS) });
    return json({ ok: true, ...counts } satisfies DeliveriesRunBody);
  } catch (error) {
    return errorResponse(error);
  }
}
