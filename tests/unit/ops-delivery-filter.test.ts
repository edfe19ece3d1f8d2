import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FilesystemStore } from "@/lib/store/filesystem";
import type { ObjectStore, StoreCallOptions } from "@/lib/store";
import { exportBriefs } from "@/lib/ops/actions/export";
import { readAudit } from "@/lib/ops/audit";
import { filterQuery, NO_FILTER, parseFilter } from "@/lib/ops/list-filter";
import { searchBriefs } from "@/lib/ops/search";
import { changeStatus } from "@/lib/ops/actions/brief-state";
import { findBrief } from "@/lib/ops/find";
import { storeBrief, storeUndelivered } from "../support/briefs";

/**
 * The list's delivery marks and filter (part 4, "Ops see it"): a brief is `retrying` while it has
 * a due record and `failed` while it has a failed one; both come from the listing of
 * `deliveries/`, never from each brief's `delivery.json`.
 */

let dir: string;
let store: FilesystemStore;
const now = new Date("2026-03-20T12:00:00.000Z");

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ops-delivery-"));
  store = new FilesystemStore(dir);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fill() {
  const done = await storeBrief(store, { receivedAt: "2026-03-01T10:00:00.000Z", delivery: {} });
  const retrying = await storeUndelivered(store, "retrying", {
    receivedAt: "2026-03-02T10:00:00.000Z",
    fields: { name: "Grace Hopper" },
  });
  const failed = await storeUndelivered(store, "failed", {
    receivedAt: "2026-03-03T10:00:00.000Z",
    channel: "email",
  });
  // One channel retrying and another given up: both marks.
  const both = await storeUndelivered(store, "failed", { receivedAt: "2026-03-04T10:00:00.000Z" });
  const another = await storeUndelivered(store, "retrying", { receivedAt: "2026-03-05T10:00:00.000Z" });
  const bothDue = {
    reference: both.record.reference,
    folder: both.folder,
    channel: "email",
    dueAt: "2026-03-04T10:05:00.000Z",
  };
  await store.put(
    `deliveries/due/${both.record.reference}.email.json`,
    `${JSON.stringify(bothDue)}\n`,
    "application/json",
  );
  return { done, retrying, failed, both, another };
}

const references = (page: { briefs: { reference: string }[] }) => page.briefs.map((brief) => brief.reference);

describe("the list's delivery filter", () => {
  it("parses delivery=retrying|failed, ignores anything else, and keeps it in the URL", () => {
    expect(parseFilter({ delivery: "retrying" }).delivery).toBe("retrying");
    expect(parseFilter({ delivery: "failed", status: "new" })).toMatchObject({
      delivery: "failed",
      status: "new",
    });
    expect(parseFilter({ delivery: "delivered" }).delivery).toBeNull();
    expect(parseFilter({ delivery: ["failed", "retrying"] }).delivery).toBeNull();
    expect(filterQuery(parseFilter({ delivery: "failed", q: "ada" })).toString()).toBe(
      "q=ada&delivery=failed",
    );
    expect(filterQuery(NO_FILTER).size).toBe(0);
  });

  it("marks, filters and counts from the due and failed records, combined with the other filters", async () => {
    const { retrying, failed, both, another } = await fill();
    const all = await searchBriefs(store, "briefs", NO_FILTER, { now });
    expect(all.total).toBe(5);
    const sorted = (references: string[]) => references.sort();
    expect(sorted([...all.pending.retrying])).toEqual(
      sorted([retrying, both, another].map((brief) => brief.record.reference)),
    );
    expect(sorted([...all.pending.failed])).toEqual(
      sorted([failed, both].map((brief) => brief.record.reference)),
    );
    expect(all.deliveryCounts).toEqual({ retrying: 3, failed: 2 });

    const onlyFailed = await searchBriefs(store, "briefs", parseFilter({ delivery: "failed" }), { now });
    expect(references(onlyFailed)).toEqual([both.record.reference, failed.record.reference]);
    expect(onlyFailed.total).toBe(2);
    // The status counts are of the briefs the delivery filter leaves; the delivery counts ignore it.
    expect(onlyFailed.counts).toEqual({ new: 2, handled: 0, archived: 0 });
    expect(onlyFailed.deliveryCounts).toEqual({ retrying: 3, failed: 2 });

    const grace = await searchBriefs(store, "briefs", parseFilter({ delivery: "retrying", q: "grace" }), {
      now,
    });
    expect(references(grace)).toEqual([retrying.record.reference]);

    const stored = await findBrief(store, failed.record.reference, now);
    await changeStatus({ store }, stored!, "handled", { actor: "ops", now });
    const handledFailed = await searchBriefs(
      store,
      "briefs",
      parseFilter({ delivery: "failed", status: "handled" }),
      { now },
    );
    expect(references(handledFailed)).toEqual([failed.record.reference]);
    expect(handledFailed.deliveryCounts).toEqual({ retrying: 0, failed: 1 });
    const march3 = parseFilter({ delivery: "failed", from: "2026-03-03", to: "2026-03-03" });
    expect(references(await searchBriefs(store, "briefs", march3, { now }))).toEqual([
      failed.record.reference,
    ]);
  });

  it("a record removed (delivered, or given up and then delivered) takes the mark with it", async () => {
    const { retrying } = await fill();
    await store.delete(`deliveries/due/${retrying.record.reference}.webhook.json`);
    const page = await searchBriefs(store, "briefs", parseFilter({ delivery: "retrying" }), { now });
    expect(references(page)).not.toContain(retrying.record.reference);
    expect(page.total).toBe(2);
  });

  it("never reads a brief's delivery.json to filter: the index and the records' listing are enough", async () => {
    await fill();
    await searchBriefs(store, "briefs", NO_FILTER, { now }); // builds the month index
    const reads: string[] = [];
    const counting: ObjectStore = Object.create(store, {
      get: {
        value: (path: string, options?: StoreCallOptions) => {
          reads.push(path);
          return store.get(path, options);
        },
      },
    }) as ObjectStore;
    const page = await searchBriefs(counting, "briefs", parseFilter({ delivery: "failed" }), { now });
    expect(page.total).toBe(2);
    expect(reads.filter((path) => path.startsWith("briefs/") || path.startsWith("deliveries/"))).toEqual([]);
  });

  it("the export takes the same filter, and its audit entry says so", async () => {
    const { failed, both } = await fill();
    const exported: string[] = [];
    const briefs = await exportBriefs({ store }, parseFilter({ delivery: "failed" }), { actor: "ops", now });
    for await (const brief of briefs) exported.push(brief.record.reference);
    expect(exported).toEqual([both.record.reference, failed.record.reference]);
    const [entry] = await readAudit(store);
    expect(entry?.target).toEqual({ status: null, from: null, to: null, search: null, delivery: "failed" });
  });

  it("spam has no deliveries: nothing marked", async () => {
    await storeBrief(store, { receivedAt: "2026-03-01T10:00:00.000Z", folder: "spam" });
    await fill();
    const spam = await searchBriefs(store, "spam", NO_FILTER, { now });
    expect(spam.pending.retrying.size + spam.pending.failed.size).toBe(0);
  });
});
