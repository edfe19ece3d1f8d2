import { ApiError, errorResponse } from "@/lib/http/errors";
import { requireRouteSession } from "@/lib/ops-web/gate";
import { getServices } from "@/lib/services";

/**
 * Any other path under /api/ops: 404 while the inbox on the web is off, 401 without a session,
 * and 404 with one: nothing here tells a stranger which paths exist.
 */
async function unknown(request: Request): Promise<Response> {
  try {
    await requireRouteSession(request, getServices, { mutation: false });
    throw new ApiError("not_found");
  } catch (error) {
    return errorResponse(error);
  }
}

export const GET = unknown;
export const POST = unknown;
