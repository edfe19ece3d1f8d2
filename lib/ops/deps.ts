import type { BriefAcknowledger, Deliveries } from "../deliveries";
import type { Channel } from "../notify";
import type { ObjectStore } from "../store";

/**
 * What the ops actions take, each only what it uses: the web routes pass the app's services and
 * the ops tool its own, both built by the composition root (`lib/services.ts`), which nothing in
 * `lib/ops` imports.
 */

/** Reading and changing the inbox. */
export interface InboxStore {
  store: ObjectStore;
}

/** Telling the channels about a brief again: the inbox, the configured channels and their bound. */
export interface NotifyingInbox extends InboxStore {
  /** The configured notification channels, in the order webhook, email, slack. */
  channels: readonly Channel[];
  /** Emails each brief's sender (`CONTACT_ACKNOWLEDGE=true`); `null` when that is off. */
  acknowledger: BriefAcknowledger | null;
  /** Makes, logs and retries the attempts (part 4), and forgets an erased brief's. */
  deliveries: Deliveries;
  config: { notifyTimeoutMs: number };
}

/** Who did an action, and when: what its audit entry records. */
export interface Acting {
  /** The signed-in address, or the ops tool's `--by` (else `ops-tool:<user>`). */
  actor: string;
  now?: Date;
}
