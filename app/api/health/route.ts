import { errorResponse, json } from "@/lib/http/errors";
import type { HealthBody } from "@/lib/http/responses";
import { CHANNEL_NAMES } from "@/lib/notify";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

/** GET /api/health: which drivers are active (`verification`: `turnstile` or `off`). Names only, never a secret. */
export function GET(): Response {
  try {
    const { store, limiters, verifier, config } = getServices();
    const channels = CHANNEL_NAMES.filter((channel) => config[channel] !== null);
    return json({
      ok: true,
      inbox: store.driver,
      ratelimit: limiters.contact.driver,
      verification: verifier.driver,
      channels,
    } satisfies HealthBody);
  } catch (error) {
    return errorResponse(error);
  }
}
