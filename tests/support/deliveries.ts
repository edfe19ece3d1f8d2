import type { BriefRecord } from "@/lib/briefs";
import { Deliveries, type DeliveriesDeps, type GaveUp } from "@/lib/deliveries";
import type { ObjectStore } from "@/lib/store";

/** Part 4's deliveries over `store` for tests calling the library directly: no channel, no retry, alerts kept in `alerts`. */
export function deliveriesFor(
  store: ObjectStore,
  overrides: Partial<Omit<DeliveriesDeps, "store">> = {},
): { deliveries: Deliveries; alerts: GaveUp[] } {
  const alerts: GaveUp[] = [];
  const deliveries = new Deliveries({
    store,
    channels: [],
    acknowledger: null,
    notifyTimeoutMs: 5_000,
    retrySchedule: [],
    alerts: {
      async gaveUp(event) {
        alerts.push(event);
      },
    },
    publisher: null,
    random: () => 0.5,
    ...overrides,
  });
  return { deliveries, alerts };
}

/** A brief record for the deliveries' tests, received at `receivedAt` (now by default). */
export const deliveryBrief = (reference: string, receivedAt = new Date().toISOString()): BriefRecord => ({
  reference,
  receivedAt,
  name: "Ada Lovelace",
  email: "ada@example.com",
  company: null,
  role: null,
  projectType: "web-application",
  budget: "25k-50k",
  timeline: "1-3-months",
  description: "An analytical engine for the studio's clients.",
  consent: true,
  attachment: null,
  verification: "off",
  client: { ipHash: null, userAgent: null, origin: null },
  attribution: null,
});
