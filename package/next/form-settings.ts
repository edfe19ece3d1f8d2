import { errorResponse, json } from "@/lib/http/errors";
import type { FormSettingsBody } from "@/lib/http/responses";
import { getServices } from "@/lib/services";
import { formSettings } from "@/lib/site/form-settings";

/** GET /api/form-settings: the run-time settings the prerendered forms need. Public values only. */
export function GET(): Response {
  try {
    return json(formSettings(getServices()) satisfies FormSettingsBody);
  } catch (error) {
    return errorResponse(error);
  }
}
