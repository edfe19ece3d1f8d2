import { ApiError, errorResponse, json } from "@/lib/http/errors";
import { hasBearer } from "@/lib/http/bearer";
import type { GcBody } from "@/lib/http/responses";
import { collectGarbage } from "@/lib/ops";
import { collectExpiredSignIns } from "@/lib/ops-web/cleanup";
import { getServices } from "@/lib/services";
import { Deadline } from "@/lib/store";

export const dynamic = "force-dynamic";

/**
 * Every store call of one run shares this bound, within the 10 s a Vercel function gets by
 * default: a store that hangs is answered 503, and what was not removed waits for the next run.
 */
const GC_DEADLINE_MS = 8_000;

/**
 * GET /api/cron/gc: the inbox tool's `gc` for a scheduler that can only call a URL (Vercel Cron,
 * which sends `Authorization: Bearer <CRON_SECRET>`). Removes the staged uploads no brief claimed
 * within an hour, the inbox on the web's expired sign-in records and the temporary files of uploads
 * a stopped process left unfinished (an hour untouched), and answers how many. 404 while
 * `CRON_SECRET` is not set; 401 without its token.
 */
export async function GET(request: Request): Promise<Response> {
  try {
    const { config, store } = getServices();
    if (config.cronSecret === null) throw new ApiError("not_found");
    if (!hasBearer(request, config.cronSecret)) {
      throw new ApiError("unauthorized", "This job needs Authorization: Bearer <CRON_SECRET>.", {
        headers: { "WWW-Authenticate": 'Bearer realm="cron"' },
      });
    }
    const { options } = Deadline.in(GC_DEADLINE_MS);
    const collected = await collectGarbage({ store, collectExpiredSignIns }, { call: options });
    const { stagedUploads, expiredSignIns, abandonedUploads } = collected;
    if (stagedUploads.length > 0)
      console.info(`[gc] removed ${stagedUploads.length} staged uploads no brief claimed`);
    if (expiredSignIns.length > 0)
      console.info(`[gc] removed ${expiredSignIns.length} expired sessions and spent links`);
    if (abandonedUploads.length > 0)
      console.info(`[gc] removed ${abandonedUploads.length} unfinished uploads' temporary files`);
    const removed = stagedUploads.length + expiredSignIns.length + abandonedUploads.length;
    return json({ ok: true, removed } satisfies GcBody);
  } catch (error) {
    return errorResponse(error);
  }
}
