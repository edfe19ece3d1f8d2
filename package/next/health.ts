import { pendingCounts } from "@/lib/deliveries";
import { errorResponse, json } from "@/lib/http/errors";
import type { HealthBody } from "@/lib/http/responses";
import { CHANNEL_NAMES } from "@/lib/notify";
import { getServices } from "@/lib/services";

/** How long the delivery counts may take before health answers without them. */
const COUNT_MS = 2_000;

/**
 * GET /api/health: which drivers are active (`verification`: `turnstile` or `off`), names only,
 * never a secret; and how many deliveries are retrying or failed, from the due and failed records'
 * listings (cached for 5 s); `null` when the store cannot be listed within 2 s. Health says what is
 * active: it never waits on the store for long, nor fails with it.
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
      deliveries: await pendingCounts(store, { signal: AbortSignal.timeout(COUNT_MS) }).catch(() => null),
    } satisfies HealthBody);
  } catch (error) {
    return errorResponse(error);
  }
}
