import { errorResponse, json } from "@/lib/http/errors";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

/** GET /api/health: which drivers are active. Names only, never a secret. */
export function GET(): Response {
  try {
    const { store, limiters, config } = getServices();
    const channels = [config.webhook && "webhook", config.email && "email"].filter(Boolean);
    return json({ ok: true, inbox: store.driver, ratelimit: limiters.contact.driver, channels });
  } catch (error) {
    return errorResponse(error);
  }
}
