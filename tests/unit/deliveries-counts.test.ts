import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pendingCounts, PENDING_COUNTS_TTL_MS } from "@/lib/deliveries";
import { FilesystemStore } from "@/lib/store/filesystem";
import { type ObjectStore, StoreUnavailableError } from "@/lib/store";
import { storeUndelivered } from "../support/briefs";

/** `/api/health`'s `deliveries`: the due and failed records counted from their listings, kept 5 s. */

let dir: string;
let store: FilesystemStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "delivery-counts-"));
  store = new FilesystemStore(dir);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `store`, counting its listings by prefix and failing them while `down`. */
function watched(inner: ObjectStore) {
  const listings: string[] = [];
  const state = { down: false };
  const wrapped: ObjectStore = Object.create(inner, {
    list: {
      value: (prefix: string, options?: unknown) => {
        listings.push(prefix);
        if (state.down) throw new StoreUnavailableError("the store is down");
        return inner.list(prefix, options as never);
      },
    },
  }) as ObjectStore;
  return { store: wrapped, listings, state };
}

describe("pendingCounts", () => {
  it("counts each due and failed record once: two channels of one brief are two", async () => {
    const brief = await storeUndelivered(store, "retrying");
    await storeUndelivered(store, "retrying", { channel: "email" });
    await storeUndelivered(store, "failed");
    await storeUndelivered(store, "failed", { channel: "acknowledgment" });
    await store.put(
      `deliveries/due/${brief.record.reference}.slack.json`,
      `${JSON.stringify({ reference: brief.record.reference, folder: brief.folder, channel: "slack", dueAt: new Date().toISOString() })}\n`,
      "application/json",
    );
    expect(await pendingCounts(store)).toEqual({ retrying: 3, failed: 2 });
  });

  it("an empty store counts nothing", async () => {
    expect(await pendingCounts(store)).toEqual({ retrying: 0, failed: 0 });
  });

  it("lists at most once in 5 seconds, shares a listing under way, and lists again after", async () => {
    const { store: counted, listings } = watched(store);
    const start = 1_000_000;
    const [first, second] = await Promise.all([
      pendingCounts(counted, {}, start),
      pendingCounts(counted, {}, start),
    ]);
    expect(first).toEqual({ retrying: 0, failed: 0 });
    expect(second).toBe(first);
    expect(listings).toEqual(["deliveries/due/", "deliveries/failed/"]);

    await storeUndelivered(store, "failed");
    expect(await pendingCounts(counted, {}, start + PENDING_COUNTS_TTL_MS - 1)).toEqual({
      retrying: 0,
      failed: 0,
    });
    expect(listings).toHaveLength(2);
    expect(await pendingCounts(counted, {}, start + PENDING_COUNTS_TTL_MS)).toEqual({
      retrying: 0,
      failed: 1,
    });
    expect(listings).toHaveLength(4);
  });

  it("a listing that fails is not kept: the next call lists again", async () => {
    const { store: flaky, listings, state } = watched(store);
    state.down = true;
    await expect(pendingCounts(flaky, {}, 0)).rejects.toThrow(StoreUnavailableError);
    state.down = false;
    expect(await pendingCounts(flaky, {}, 1)).toEqual({ retrying: 0, failed: 0 });
    expect(listings.length).toBeGreaterThan(2);
  });
});
