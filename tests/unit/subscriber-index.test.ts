import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  confirmSubscriber,
  subscribe,
  subscriberId,
  subscriberPath,
  unsubscribeSubscriber,
} from "@/lib/newsletter";
import { SUBSCRIBER_CHANGES_PREFIX } from "@/lib/newsletter/subscriber-changes";
import {
  applyRetention,
  erase,
  exportSubscribers,
  NO_SUBSCRIBER_FILTER,
  parseSubscriberFilter,
  planErase,
  readAudit,
  readSubscriberIndex,
  readSubscribers,
  SUBSCRIBER_COLUMNS,
  subscriberCsvRecord,
  subscriberFilterQuery,
  subscriberPage,
  type SubscriberSummary,
} from "@/lib/ops";
import {
  foldSubscriberChanges,
  SETTLED_MS,
  SUBSCRIBER_INDEX_PATH,
  summarizeSubscriber,
} from "@/lib/ops/subscriber-index";
import { BlobStore } from "@/lib/store/blob";
import { FilesystemStore } from "@/lib/store/filesystem";
import type { GetOptions, ObjectStore } from "@/lib/store/types";
import type { BlobStandIn } from "../support/blob-standin";
import { withBlobStandIn } from "../support/blob-vitest";

/**
 * The subscribers' index on both real drivers: what the list on the web reads instead of every
 * record. It must show every change that has landed (marks read in), fold settled marks in and
 * remove them, lose nothing under concurrent writers, forget an erased address at once, and
 * rebuild itself when missing or damaged.
 */

let dir: string;
let standIn: BlobStandIn;

withBlobStandIn((ready) => (standIn = ready));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "subscriber-index-test-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 10, minute));
const later = () => new Date(Date.now() + SETTLED_MS + 60_000);

async function marks(store: ObjectStore): Promise<string[]> {
  const paths: string[] = [];
  for await (const info of store.list(SUBSCRIBER_CHANGES_PREFIX)) paths.push(info.path);
  return paths;
}

async function indexText(store: ObjectStore): Promise<string | null> {
  const bytes = await store.get(SUBSCRIBER_INDEX_PATH);
  return bytes === null ? null : Buffer.from(bytes).toString("utf8");
}

/** What the records say, as summaries: what every view must equal. */
async function truth(store: ObjectStore): Promise<SubscriberSummary[]> {
  const records = await readSubscribers(store);
  return records
    .map((record) => summarizeSubscriber(subscriberId(record.email), record))
    .sort((a, b) =>
      a.subscribedAt < b.subscribedAt ? 1 : a.subscribedAt > b.subscribedAt ? -1 : a.id < b.id ? -1 : 1,
    );
}

describe.each<[string, () => ObjectStore]>([
  ["filesystem", () => new FilesystemStore(join(dir, "inbox"))],
  ["vercel-blob", () => new BlobStore(standIn.token)],
])("the subscribers' index on the %s store", (_driver, makeStore) => {
  let store: ObjectStore;
  beforeEach(() => {
    store = makeStore();
  });

  it("is built on the first view, newest first, with how consent was given", async () => {
    await subscribe(
      store,
      { email: "old@example.com", topics: ["AI"], site: "same-origin", page: "/blog" },
      at(1),
    );
    await subscribe(store, { email: "New@Example.com", topics: [] }, at(2), undefined, { doubleOptIn: true });
    expect(await indexText(store)).toBeNull();
    const view = await readSubscriberIndex(store);
    expect(view.map((summary) => summary.email)).toEqual(["New@Example.com", "old@example.com"]);
    expect(view[0]).toMatchObject({
      id: subscriberId("new@example.com"),
      status: "pending",
      consent: { method: "double", page: null, site: "unknown" },
    });
    expect(view[1]).toMatchObject({
      status: "confirmed",
      consent: { method: "single", page: "/blog", site: "same-origin" },
    });
    expect(await indexText(store)).toContain("old@example.com");
    // The rebuild read both records: the marks their subscriptions left are not needed any more, once settled.
    expect(await marks(store)).toHaveLength(2);
  });

  it("shows a change at once, and folds settled marks in, removing them", async () => {
    await subscribe(store, { email: "ada@example.com", topics: ["AI"] }, at(1), undefined, {
      doubleOptIn: true,
    });
    await readSubscriberIndex(store);
    const id = subscriberId("ada@example.com");
    await confirmSubscriber(store, id, at(2));
    expect((await readSubscriberIndex(store))[0]).toMatchObject({
      status: "confirmed",
      confirmedAt: at(2).toISOString(),
    });
    // Young marks are read in, never folded away: the index on disk still says pending.
    expect(await indexText(store)).toContain('"pending"');
    await unsubscribeSubscriber(store, id, at(3));
    const folds: Promise<unknown>[] = [];
    const settled = await readSubscriberIndex(store, {
      now: later(),
      defer: (task) => void folds.push(task()),
    });
    expect(folds).toHaveLength(1);
    await Promise.all(folds);
    expect(settled[0]).toMatchObject({ status: "unsubscribed" });
    expect(await indexText(store)).toContain('"unsubscribed"');
    expect(await marks(store)).toEqual([]);
    expect(await readSubscriberIndex(store)).toEqual(settled);
  });

  it("is folded by gc while nobody opens the list; without an index, gc leaves it to the next view", async () => {
    await subscribe(store, { email: "ada@example.com", topics: ["AI"] }, at(1));
    // No index yet: gc reads no record to build one (the next view does), and the mark stays.
    expect(await foldSubscriberChanges(store, { now: later() })).toBe(0);
    expect(await indexText(store)).toBeNull();
    expect(await marks(store)).toHaveLength(1);

    await readSubscriberIndex(store);
    await unsubscribeSubscriber(store, subscriberId("ada@example.com"), at(2));
    const waiting = (await marks(store)).length;
    expect(waiting).toBe(2);
    // Young marks wait: their writer may still be writing.
    expect(await foldSubscriberChanges(store)).toBe(0);
    expect(await foldSubscriberChanges(store, { now: later(), dryRun: true })).toBe(waiting);
    expect(await indexText(store)).toContain('"confirmed"');
    expect(await marks(store)).toHaveLength(waiting);

    expect(await foldSubscriberChanges(store, { now: later() })).toBe(waiting);
    expect(await indexText(store)).toContain('"unsubscribed"');
    expect(await marks(store)).toEqual([]);
    expect(await readSubscriberIndex(store)).toEqual(await truth(store));
  });

  it("loses no change when subscriptions, confirmations and views run at once", async () => {
    await subscribe(store, { email: "first@example.com", topics: ["AI"] }, at(0));
    await readSubscriberIndex(store);
    const emails = Array.from({ length: 24 }, (_, index) => `person${index}@example.com`);
    const work: Promise<unknown>[] = [];
    for (const [index, email] of emails.entries()) {
      work.push(
        subscribe(store, { email, topics: ["Research"] }, at(index + 1), undefined, {
          doubleOptIn: true,
        }).then(() => (index % 2 === 0 ? confirmSubscriber(store, subscriberId(email), at(40)) : null)),
      );
      // Views while the writers write: each reads the marks in and writes nothing back (none is settled).
      if (index % 4 === 0) work.push(readSubscriberIndex(store));
    }
    await Promise.all(work);
    const folds: Promise<unknown>[] = [];
    const defer = (task: () => Promise<unknown>) => void folds.push(task());
    expect(await readSubscriberIndex(store, { now: later(), defer })).toEqual(await truth(store));
    await Promise.all(folds);
    expect(await readSubscriberIndex(store)).toEqual(await truth(store));
  });

  it("forgets an erased address in the stored index at once", async () => {
    await subscribe(store, { email: "gone@example.com", topics: ["AI"] }, at(1));
    await subscribe(store, { email: "stays@example.com", topics: ["AI"] }, at(2));
    await readSubscriberIndex(store);
    expect(await indexText(store)).toContain("gone@example.com");
    await erase(store, await planErase(store, "GONE@example.com"));
    expect(await indexText(store)).not.toContain("gone@example.com");
    const goneId = subscriberId("gone@example.com");
    expect((await marks(store)).filter((path) => path.includes(goneId))).toEqual([]);
    expect((await readSubscriberIndex(store)).map((summary) => summary.email)).toEqual(["stays@example.com"]);
  });

  it("drops an address erased while the index was being rebuilt from the records", async () => {
    await subscribe(store, { email: "gone@example.com", topics: ["AI"] }, at(1));
    await subscribe(store, { email: "stays@example.com", topics: ["AI"] }, at(2));
    // The erasure lands just after the rebuild read the record: there is no index yet to take it
    // out of, and the erasure removes its marks, so only the rebuild itself can notice.
    let erased = false;
    const rebuilding = new Proxy(store, {
      get(target, key) {
        if (key === "get") {
          return async (path: string, options?: GetOptions) => {
            const bytes = await target.get(path, options);
            if (path === subscriberPath("gone@example.com") && !erased) {
              erased = true;
              await erase(target, await planErase(target, "gone@example.com"));
            }
            return bytes;
          };
        }
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const view = await readSubscriberIndex(rebuilding);
    expect(erased).toBe(true);
    expect(view.map((summary) => summary.email)).toEqual(["stays@example.com"]);
    expect(await indexText(store)).toContain("stays@example.com");
    expect(await indexText(store)).not.toContain("gone@example.com");
    expect(await readSubscriberIndex(store)).toEqual(await truth(store));
  });

  it("drops the pending records retention removes", async () => {
    await subscribe(store, { email: "waits@example.com", topics: [] }, at(1), undefined, {
      doubleOptIn: true,
    });
    await readSubscriberIndex(store);
    const { pendingSubscribers } = await applyRetention(store, {
      now: new Date(Date.UTC(2026, 10, 20)),
      retentionDays: null,
    });
    expect(pendingSubscribers).toEqual([subscriberPath("waits@example.com")]);
    expect(await readSubscriberIndex(store)).toEqual([]);
  });

  it("is rebuilt when damaged or of another version", async () => {
    await subscribe(store, { email: "ada@example.com", topics: ["AI"] }, at(1));
    for (const damaged of ["{not json", JSON.stringify({ version: 0, subscribers: [] })]) {
      await store.put(SUBSCRIBER_INDEX_PATH, damaged, "application/json");
      expect((await readSubscriberIndex(store)).map((summary) => summary.email)).toEqual(["ada@example.com"]);
      expect(await indexText(store)).toContain("ada@example.com");
    }
  });

  it("an export holds every subscriber the filters show and is audited with the filters, never an address", async () => {
    await subscribe(store, { email: "a@example.com", topics: ["AI"] }, at(1));
    await subscribe(store, { email: "b@example.com", topics: ["Quantum"] }, at(2));
    const filter = parseSubscriberFilter({ status: "confirmed", topic: "AI" });
    const shown = await exportSubscribers({ store }, filter, { actor: "ops@studio.example", now: at(5) });
    expect(shown.map((summary) => summary.email)).toEqual(["a@example.com"]);
    const [entry] = await readAudit(store);
    expect(entry).toEqual({
      at: at(5).toISOString(),
      actor: "ops@studio.example",
      action: "export-subscribers",
      target: { status: "confirmed", topic: "AI", count: 1 },
    });
  });
});

describe("subscriberPage", () => {
  const summary = (index: number, status: SubscriberSummary["status"], topics: SubscriberSummary["topics"]) =>
    summarizeSubscriber(String(index).padStart(64, "0"), {
      email: `p${index}@example.com`,
      topics,
      status,
      subscribedAt: new Date(Date.UTC(2026, 0, 1) + (1000 - index) * 60_000).toISOString(),
      updatedAt: "2026-01-02T00:00:00.000Z",
      confirmedAt: null,
      unsubscribedAt: null,
    });
  const all = [
    ...Array.from({ length: 60 }, (_, index) => summary(index, "confirmed", ["AI", "Research"])),
    summary(60, "pending", ["AI"]),
    summary(61, "unsubscribed", ["Quantum"]),
  ];

  it("counts confirmed subscribers per topic and everyone per status, whatever the filters", () => {
    const page = subscriberPage(all, parseSubscriberFilter({ status: "pending" }));
    expect(page.topicCounts).toMatchObject({ AI: 60, Research: 60, Quantum: 0 });
    expect(page.statusCounts).toEqual({ pending: 1, confirmed: 60, unsubscribed: 1 });
    expect(page.subscribers.map((each) => each.email)).toEqual(["p60@example.com"]);
  });

  it.each([
    [{}, 62, 2],
    [{ status: "confirmed" }, 60, 2],
    [{ topic: "AI" }, 61, 2],
    [{ topic: "Quantum" }, 1, 1],
    [{ status: "unsubscribed", topic: "AI" }, 0, 1],
    [{ status: "nonsense", topic: "ai" }, 62, 2],
  ])("filters %j: %i matching, %i pages of 50", (query, total, pages) => {
    const page = subscriberPage(all, parseSubscriberFilter(query));
    expect([page.total, page.pages]).toEqual([total, pages]);
  });

  it("pages 50 at a time, newest first, keeping the page within the pages", () => {
    expect(subscriberPage(all, NO_SUBSCRIBER_FILTER, 1).subscribers).toHaveLength(50);
    const last = subscriberPage(all, NO_SUBSCRIBER_FILTER, 99);
    expect(last.page).toBe(2);
    expect(last.subscribers.map((each) => each.email).slice(0, 2)).toEqual([
      "p50@example.com",
      "p51@example.com",
    ]);
  });

  it("keeps the filters in the URL in one order", () => {
    expect(subscriberFilterQuery({ topic: "Emerging technology", status: "confirmed" }).toString()).toBe(
      "status=confirmed&topic=Emerging+technology",
    );
    expect(subscriberFilterQuery(NO_SUBSCRIBER_FILTER).size).toBe(0);
  });
});

describe("the subscribers' CSV", () => {
  it("is the ops tool's columns, the same row for a record and for its summary, formulas defused", () => {
    expect(SUBSCRIBER_COLUMNS).toEqual([
      "email",
      "status",
      "topics",
      "subscribedAt",
      "updatedAt",
      "confirmedAt",
      "unsubscribedAt",
      "verification",
    ]);
    const record = {
      email: "=cmd@example.com",
      topics: ["AI" as const, "Research" as const],
      status: "confirmed" as const,
      subscribedAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      confirmedAt: "2026-01-01T00:00:00.000Z",
      unsubscribedAt: null,
    };
    const row = subscriberCsvRecord(record);
    expect(row).toBe(
      "'=cmd@example.com,confirmed,AI; Research,2026-01-01T00:00:00.000Z,2026-01-01T00:00:00.000Z,2026-01-01T00:00:00.000Z,,off\r\n",
    );
    expect(subscriberCsvRecord(summarizeSubscriber("0".repeat(64), record))).toBe(row);
  });
});
