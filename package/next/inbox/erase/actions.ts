"use server";

import { headers } from "next/headers";
import { isCrossOrigin } from "@/lib/http/origin";
import { requirePageSession } from "@/lib/ops-web/gate";
import { email as emailRule } from "@/lib/schemas/text";
import { getServices } from "@/lib/services";
import { lookUpPerson } from "./find";
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
  return lookUpPerson(services.store, address.data, typed);
}
