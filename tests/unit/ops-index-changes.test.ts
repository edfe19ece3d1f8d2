import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ObjectStore } from "@/lib/store";
import { BlobStore } from "@/lib/store/blob";
import { FilesystemStore } from "@/lib/store/filesystem";
import { addBriefNote, changeStatus } from "@/lib/ops/actions/brief-state";
import { readCatalog } from "@/lib/ops/catalog";
import { erase, planErase } from "@/lib/ops/erase";
import { indexDeliveryChange } from "@/lib/ops/index-update";
import { checkMonth } from "@/lib/ops/month-check";
import {
  changesPath,
  foldMonthChanges,
  indexPath,
  parseMonthChanges,
  parseMonthIndex,
  readMonthIndex,
} from "@/lib/ops/month-index";
import { findBrief } from "@/lib/ops/find";
import { monthNumber } from "@/lib/ops/reader";
import { NO_FILTER, parseFilter } from "@/lib/ops/list-filter";
import { searchBriefs } from "@/lib/ops/search";
import { countByStatus } from "@/lib/ops/summary";
import type { BlobStandIn } from "../support/blob-standin";
import { withBlobStandIn } from "../support/blob-vitest";
import { storeBrief } from "../support/briefs";

/**
 * A status change at any size (issue 45): it writes its month's small changes document, never the
 * month's whole index; readers, the counts and the status filter see it at once; whatever writes
 * the index next folds the changes in; concurrent status changes, notes and a month's check lose
 * nothing and leave counts that match the entries; an erasure leaves nothing of the brief in either.
 */

let standIn: BlobStandIn;
withBlobStandIn((ready) => (standIn = ready));

vi.setConfig({ testTimeout: 30_000 });

const now = new Date("2026-03-20T12:00:00.000Z");
const FEBRUARY = monthNumber(2026, 2);

describe.each([
  ["the filesystem inbox", "filesystem"],
  ["the Blob inbox", "blob"],
] as const)("a month's index changes on %s", (_label, driver) => {
  let dir: string;
  let store: ObjectStore;
  const view = (filter = NO_FILTER) => searchBriefs(store, "briefs", filter, { now, background: false });
  const text = async (path: string) => Buffer.from((await store.get(path)) ?? []).toString("utf8");

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ops-index-changes-"));
    store = driver === "filesystem" ? new FilesystemStore(dir) : new BlobStore(standIn.token);
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function february(count: number) {
    const stored = [];
    for (let day = 1; day <= count; day++) {
      stored.push(
        await storeBrief(store, {
          receivedAt: `2026-02-${String(day).padStart(2, "0")}T10:00:00.000Z`,
          fields: { email: `client${day}@example.com` },
          delivery: {},
        }),
      );
    }
    await view();
    return Promise.all(stored.map(async (brief) => (await findBrief(store, brief.record.reference, now))!));
  }

  it("a status change writes the month's changes only; the list, its counts and the status filter see it", async () => {
    const [first, second] = await february(3);
    const before = await text(indexPath("briefs", FEBRUARY));
    await changeStatus({ store }, first!, "handled", { actor: "ops", now });
    await addBriefNote({ store }, second!, "Called back.", { actor: "ops", now });
    // The index itself is as it was: its bytes (and their random revision) unchanged.
    expect(await text(indexPath("briefs", FEBRUARY))).toBe(before);
    const changes = parseMonthChanges(await store.get(changesPath("briefs", FEBRUARY)));
    expect(changes?.entries.map((entry) => [entry.reference, entry.status])).toEqual([
      [first!.record.reference, "handled"],
      [second!.record.reference, "new"],
    ]);
    const page = await view();
    expect(page.counts).toEqual({ new: 2, handled: 1, archived: 0 });
    const handled = await view(parseFilter({ status: "handled" }));
    expect(handled.briefs.map((brief) => brief.reference)).toEqual([first!.record.reference]);
    const index = await readMonthIndex(store, "briefs", FEBRUARY);
    expect(index?.entries.find((entry) => entry.reference === first!.record.reference)?.status).toBe(
      "handled",
    );
  });

  it("whatever writes the index next folds the changes in and empties them", async () => {
    const [first, second] = await february(2);
    await changeStatus({ store }, first!, "archived", { actor: "ops", now });
    await indexDeliveryChange(store, second!.folder, {
      email: { ok: false, at: now.toISOString(), state: "failed", attempts: 3, log: [] },
    });
    expect(parseMonthChanges(await store.get(changesPath("briefs", FEBRUARY)))?.entries).toEqual([]);
    const written = parseMonthIndex(await store.get(indexPath("briefs", FEBRUARY)));
    const entry = (reference: string) => written?.entries.find((each) => each.reference === reference);
    expect(entry(first!.record.reference)?.status).toBe("archived");
    expect(entry(second!.record.reference)?.delivery).toBe("email ✗");
    // A fold with nothing to fold writes nothing.
    const folded = await text(indexPath("briefs", FEBRUARY));
    await foldMonthChanges(store, "briefs", FEBRUARY);
    expect(await text(indexPath("briefs", FEBRUARY))).toBe(folded);
    expect((await view()).counts).toEqual({ new: 1, handled: 0, archived: 1 });
  });

  it("concurrent status changes, notes, a month's check and a fold lose nothing, and the counts match the entries", async () => {
    const briefs = await february(6);
    const statuses = ["handled", "archived", "handled", "archived", "handled"] as const;
    await Promise.all([
      ...statuses.map((status, index) =>
        changeStatus({ store }, briefs[index]!, status, { actor: "ops", now }),
      ),
      addBriefNote({ store }, briefs[5]!, "Sent a quote.", { actor: "ops", now }),
      checkMonth(store, "briefs", FEBRUARY),
      foldMonthChanges(store, "briefs", FEBRUARY),
    ]);
    const index = await readMonthIndex(store, "briefs", FEBRUARY);
    const status = (reference: string) =>
      index?.entries.find((entry) => entry.reference === reference)?.status;
    expect(briefs.map((brief) => status(brief.record.reference))).toEqual([...statuses, "new"]);
    const catalog = await readCatalog(store, "briefs");
    expect(catalog?.months["2026/02"]?.counts).toEqual(countByStatus(index?.entries ?? []));
    expect(catalog?.months["2026/02"]?.counts).toEqual({ new: 1, handled: 3, archived: 2 });
  });

  it("erasing a brief with a recorded change leaves nothing of it in the index or its changes", async () => {
    const [, gone] = await february(2);
    // Changed between the erasure's plan (which checks the month) and the erasure itself.
    const plan = await planErase(store, "client2@example.com", { now });
    await changeStatus({ store }, gone!, "handled", { actor: "ops", now });
    await erase(store, plan);
    for await (const info of store.list("index/")) {
      const stored = await text(info.path);
      expect(stored).not.toContain("client2@example.com");
      expect(stored).not.toContain(gone!.record.reference);
    }
    expect((await view()).counts).toEqual({ new: 1, handled: 0, archived: 0 });
  });

  it("a change never adds a brief the index does not hold, and goes at the index's next write", async () => {
    const [first] = await february(2);
    // Stored into a settled month around the service: only a check of the month may list it.
    const aside = await storeBrief(store, { receivedAt: "2026-02-20T10:00:00.000Z", delivery: {} });
    const found = await findBrief(store, aside.record.reference, now);
    await changeStatus({ store }, found!, "archived", { actor: "ops", now });
    expect((await view()).total).toBe(2);
    expect(parseMonthChanges(await store.get(changesPath("briefs", FEBRUARY)))?.entries).toHaveLength(1);
    await indexDeliveryChange(store, first!.folder, {
      email: { ok: true, at: now.toISOString(), state: "delivered", attempts: 1, log: [] },
    });
    expect(parseMonthChanges(await store.get(changesPath("briefs", FEBRUARY)))?.entries).toEqual([]);
    // The month's check reads it from its own files, status included.
    await checkMonth(store, "briefs", FEBRUARY);
    const archived = await view(parseFilter({ status: "archived" }));
    expect(archived.briefs.map((brief) => brief.reference)).toEqual([aside.record.reference]);
  });

  it("a brief is found from the index's statuses, listing nothing; one the index does not hold, by listing", async () => {
    const [first] = await february(3);
    const listed: string[] = [];
    const watching = new Proxy(store, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (key !== "list" || typeof value !== "function")
          return typeof value === "function" ? value.bind(target) : value;
        return (prefix: string, ...rest: unknown[]) => {
          listed.push(prefix);
          return (value as (...args: unknown[]) => unknown).call(target, prefix, ...rest);
        };
      },
    });
    const found = await findBrief(watching, first!.record.reference, now);
    expect(found?.folder).toBe(first!.folder);
    expect(listed).toEqual([]);
    // Not in the index (stored around the service into a settled month): still found, by listing.
    const aside = await storeBrief(store, { receivedAt: "2026-02-20T10:00:00.000Z", delivery: {} });
    expect((await findBrief(watching, aside.record.reference, now))?.folder).toBe(aside.folder);
    expect(await findBrief(store, "AAAA-AAAA-AAAA-AAAA", now)).toBeNull();
  });
});
