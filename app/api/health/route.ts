import { pendingCounts } from "@/lib/deliveries";
import { errorResponse, json } from "@/lib/http/errors";
import type { HealthBody } from "@/lib/http/responses";
import { CHANNEL_NAMES } from "@/lib/notify";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

/**
 * GET /api/health: which drivers are active (`verification`: `turnstile` or `off`), names only,
 * never a secret; and how many deliveries are retrying or failed, from the due and failed records'
 * listings (cached for 5 s). A store that cannot be listed answers 503, as it would for a brief.
 */
export async function GET(): Promise<Response> {
  try {
    const { store, limiters, verifier, config } = getServices();
    const channels = CHANNEL_NAMES.filter((channel) => config[channel] !== null);
    return json({
      ok: true,
      inbox: store.driver,
      ratelimit: limiters.contact.driver,
      verification: verifier.driver,
      channels,
      deliveries: await pendingCounts(store),
    } satisfies HealthBody);
  } catch (error) {
    return errorResponse(error);
  }
}
