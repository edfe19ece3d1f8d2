import { ApiError, errorResponse, json } from "@/lib/http/errors";
import { hasBearer } from "@/lib/http/bearer";
import type { GcBody } from "@/lib/http/responses";
import { runRetentionGc } from "@/lib/ops-web";
import { getServices } from "@/lib/services";
import { Deadline } from "@/lib/store";

/**
 * Every store call of one run shares this bound, within the 10 s a Vercel function gets by
 * default: a store that hangs is answered 503, and what was not removed waits for the next run.
 */
const GC_DEADLINE_MS = 8_000;

/**
 * GET /api/cron/gc: the inbox tool's `gc` for a scheduler that can only call a URL (Vercel Cron,
 * which sends `Authorization: Bearer <CRON_SECRET>`). Removes the staged uploads no brief claimed
 * within an hour, the inbox on the web's expired sign-in records, the temporary files of uploads
 * a stopped process left unfinished (an hour untouched), the briefs and spam past
 * `RETENTION_DAYS` and the subscriptions left pending for 7 days, and answers how many. 404 while
 * `CRON_SECRET` is not set; 401 without its token.
 */
export async function GET(request: Request): Promise<Response> {
  try {
    const services = getServices();
    const { cronSecret } = services.config;
    if (cronSecret === null) throw new ApiError("not_found");
    if (!hasBearer(request, cronSecret)) {
      throw new ApiError("unauthorized", "This job needs Authorization: Bearer <CRON_SECRET>.", {
        headers: { "WWW-Authenticate": 'Bearer realm="cron"' },
      });
    }
    const { options } = Deadline.in(GC_DEADLINE_MS);
    const { removed } = await runRetentionGc(services, { actor: "cron", call: options });
    return json({ ok: true, removed } satisfies GcBody);
  } catch (error) {
    return errorResponse(error);
  }
}
