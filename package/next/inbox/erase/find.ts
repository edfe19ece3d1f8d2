import { planErase } from "@/lib/ops";
import type { ObjectStore } from "@/lib/store";
import { StoreUnavailableError } from "@/lib/store";
import type { PersonLookup } from "./lookup";

/** Counts what the inbox holds about a valid address: the "Find" form's and the subscribers list's look-up. */
export async function lookUpPerson(
  store: ObjectStore,
  address: string,
  typed = address,
): Promise<PersonLookup> {
  try {
    const plan = await planErase(store, address, {
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
