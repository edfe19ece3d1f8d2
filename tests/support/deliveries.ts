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
