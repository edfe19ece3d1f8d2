import { Deadline, type ObjectStore, type StoreCallOptions } from "../store";
import { LEASE_MARGIN_MS } from "./lease";
import { dueEntry } from "./records";
import type { DueRecord } from "./types";

/**
 * One claimed attempt's hold on its due record. The claimant's store calls are bounded to end
 * `LEASE_MARGIN_MS` before its lease does, so none of its writes can land once another claimant
 * may hold the record; within the lease, the record changes only when an erase (or retention)
 * removes it. So: `holds()` before the send and before each write, and the last write (the next
 * due record, or the record's removal) conditional on the claim's own version. A claimant that
 * finds it gone records nothing and sends nothing more.
 */
export class Fence {
  private readonly deadline: Deadline;
  private readonly endsAt: number;

  constructor(
    private readonly store: ObjectStore,
    private readonly path: string,
    private readonly version: string,
    leaseMs: number,
  ) {
    const ms = Math.max(0, leaseMs - LEASE_MARGIN_MS);
    this.deadline = Deadline.in(ms);
    this.endsAt = Date.now() + ms;
  }

  /** The options every store call of the attempt takes: bounded to the claim's own time. */
  get options(): StoreCallOptions {
    return this.deadline.options;
  }

  /** How long the claimant may still act before its writes could land after its lease. */
  msLeft(): number {
    return this.endsAt - Date.now();
  }

  /** The due record still carries this claim. */
  async holds(): Promise<boolean> {
    const current = await this.store.getVersioned(this.path, this.options);
    return current?.version === this.version;
  }

  /** The next attempt's due record, unclaimed, in place of this claim's; `false`: the claim was gone. */
  async reschedule(next: DueRecord): Promise<boolean> {
    const { body, contentType } = dueEntry(next);
    return this.store.putIfVersion(this.path, body, contentType, this.version, this.options);
  }

  /** The due record removed (the channel is done); `false`: the claim was gone. */
  async release(): Promise<boolean> {
    return this.store.deleteIfVersion(this.path, this.version, this.options);
  }

  end(): void {
    this.deadline.end();
  }
}
