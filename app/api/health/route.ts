import { errorResponse, json } from "@/lib/http/errors";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

/** GET /api/health: which drivers are active (`verification`: `turnstile` or `off`). Names only, never a secret. */
export function GET(): Response {
  try {
    const { store, limiters, verifier, config } = getServices();
    const channels = [config.webhook && "webhook", config.email && "email"].filter(Boolean);
    return json({
      ok: true,
      inbox: store.driver,
      ratelimit: limiters.contact.driver,
      verification: verifier.driver,
      channels,
    });
  } catch (error) {
    return errorResponse(error);
  }
}
