"use server";

import { headers } from "next/headers";
import { isCrossOrigin } from "@/lib/http/origin";
import { planErase } from "@/lib/ops";
import { requirePageSession } from "@/lib/ops-web/gate";
import { email as emailRule } from "@/lib/schemas/text";
import { getServices } from "@/lib/services";
import { StoreUnavailableError } from "@/lib/store";
import type { PersonLookup } from "./lookup";

/**
 * "Find" on /inbox/erase: a Server Action, so the address travels in a POST body, never in the
 * page's URL, a history or a request log. Changes nothing; counts what the inbox holds about it.
 */
export async function findPerson(_previous: PersonLookup, form: FormData): Promise<PersonLookup> {
  const { services } = await requirePageSession("/inbox/erase", getServices);
  const typed = String(form.get("email") ?? "").trim();
  if (isCrossOrigin(await headers(), services.config)) {
    return { typed, problem: "This request came from another site.", found: null };
  }
  const address = emailRule.safeParse(typed);
  if (!address.success) return { typed, problem: "Type a valid email address.", found: null };
  try {
    const plan = await planErase(services.store, address.data, {
      onProblem: (problem) => console.warn(`[ops] person look-up skipped: ${problem.message}`),
    });
    return {
      typed,
      problem: null,
      found: {
        email: plan.email,
        briefs: plan.briefs.length,
        spam: plan.spam.length,
        subscribers: plan.subscriber ? 1 : 0,
      },
    };
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    return { typed, problem: "The inbox store did not answer. Try again in a moment.", found: null };
  }
}
