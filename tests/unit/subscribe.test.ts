import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "@/lib/http/errors";
import { BlobStore } from "@/lib/store/blob";
import { FilesystemStore } from "@/lib/store/filesystem";
import type { ObjectStore } from "@/lib/store/types";
import { parseConfig } from "@/lib/config";
import { createCooldowns } from "@/lib/ratelimit";
import {
  confirmSubscriber,
  type NewsletterServices,
  requestSubscription,
  subscribe,
  subscriberId,
  subscriberPath,
  type SubscriberRecord,
  unsubscribeSubscriber,
} from "@/lib/newsletter";
import { SUBSCRIBER_CHANGES_PREFIX } from "@/lib/newsletter/subscriber-changes";
import { NEWSLETTER_TOPICS, type Topic } from "@/lib/schemas/newsletter";
import type { BlobStandIn } from "../support/blob-standin";
import { withBlobStandIn } from "../support/blob-vitest";

/**
 * Subscriber records on both real drivers: the filesystem under a temporary folder, and Vercel
 * Blob through its SDK against the stand-in. Every change is a conditional write, so concurrent
 * requests on one record never lose a change.
 */

let dir: string;
let standIn: BlobStandIn;

withBlobStandIn((ready) => (standIn = ready));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "subscribe-test-"));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const T0 = new Date("2026-03-01T10:00:00.000Z");
const T1 = new Date("2026-03-02T11:00:00.000Z");
const T2 = new Date("2026-03-03T12:00:00.000Z");
const REVISION = expect.stringMatching(/^[0-9a-f]{32}$/);
const optIn = { doubleOptIn: true };

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

describe("subscriberPath", () => {
  it.each([
    ["ada@example.com", "ada@example.com"],
    ["Ada@Example.COM", "ada@example.com"],
    ["  ADA@EXAMPLE.COM ", "ada@example.com"],
  ])("names %j by the sha256 of %j", (email, key) => {
    expect(subscriberPath(email)).toBe(`newsletter/subscribers/${sha256(key)}.json`);
    expect(subscriberId(email)).toBe(sha256(key));
  });

  it("keeps different addresses apart", () => {
    expect(subscriberPath("ada@example.com")).not.toBe(subscriberPath("ada@example.org"));
  });
});

describe.each<[string, () => ObjectStore]>([
  ["filesystem", () => new FilesystemStore(join(dir, "inbox"))],
  ["vercel-blob", () => new BlobStore(standIn.token)],
])("subscribers on the %s store", (_driver, makeStore) => {
  let store: ObjectStore;
  beforeEach(() => {
    store = makeStore();
  });

  const ADA = "ada@example.com";
  const id = subscriberId(ADA);

  async function stored(email = ADA): Promise<SubscriberRecord> {
    const bytes = await store.get(subscriberPath(email));
    if (bytes === null) throw new Error(`no record for ${email}`);
    return JSON.parse(Buffer.from(bytes).toString("utf8")) as SubscriberRecord;
  }

  describe("single opt-in (part 1)", () => {
    it("creates a confirmed record on the first request", async () => {
      const result = await subscribe(store, { email: "Ada@Example.com", topics: ["AI", "Quantum"] }, T0);
      expect(result.status).toBe("subscribed");
      expect(await stored()).toEqual({
        email: "Ada@Example.com",
        topics: ["AI", "Quantum"],
        status: "confirmed",
        subscribedAt: T0.toISOString(),
        updatedAt: T0.toISOString(),
        confirmedAt: T0.toISOString(),
        unsubscribedAt: null,
        verification: "off",
        consent: {
          at: T0.toISOString(),
          method: "single",
          site: "unknown",
          ipHash: null,
          verification: "off",
        },
        revision: REVISION,
      });
      expect(result.record).toEqual(await stored());
    });

    it("answers already-subscribed later, whatever the case, and keeps the first address form", async () => {
      await subscribe(store, { email: "Ada@Example.com", topics: [] }, T0);
      expect((await subscribe(store, { email: ADA, topics: [] }, T1)).status).toBe("already-subscribed");
      expect((await subscribe(store, { email: "ADA@EXAMPLE.COM", topics: [] }, T1)).status).toBe(
        "already-subscribed",
      );
      expect((await stored()).email).toBe("Ada@Example.com");
    });

    it("records how the creating request's human check went, and keeps it through later requests", async () => {
      await subscribe(store, { email: ADA, topics: ["AI"], verification: "unavailable" }, T0);
      await subscribe(store, { email: ADA, topics: ["Quantum"], verification: "passed" }, T1);
      expect(await stored()).toMatchObject({ topics: ["AI", "Quantum"], verification: "unavailable" });
    });

    it("merges new topics as a union and moves updatedAt", async () => {
      await subscribe(store, { email: ADA, topics: ["AI", "Research"] }, T0);
      await subscribe(store, { email: ADA, topics: ["Research", "Quantum", "AI"] }, T1);
      expect(await stored()).toMatchObject({
        topics: ["AI", "Research", "Quantum"],
        status: "confirmed",
        subscribedAt: T0.toISOString(),
        updatedAt: T1.toISOString(),
        confirmedAt: T0.toISOString(),
      });
    });

    it.each<[string, Topic[]]>([
      ["no topics", []],
      ["topics already held", ["Research"]],
    ])("does not write when the request adds nothing (%s)", async (_label, topics) => {
      await subscribe(store, { email: ADA, topics: ["AI", "Research"] }, T0);
      const before = await store.get(subscriberPath(ADA));
      const writes = [vi.spyOn(store, "put"), vi.spyOn(store, "putIfVersion")];
      // A new address is created without reading first; an existing record refuses that create.
      const creates = vi.spyOn(store, "create");
      expect((await subscribe(store, { email: ADA, topics }, T1)).status).toBe("already-subscribed");
      for (const write of writes) expect(write).not.toHaveBeenCalled();
      // Only the subscribers' index's change mark is created (it is left before the record is read).
      for (const [index, { value }] of creates.mock.results.entries()) {
        const path = String(creates.mock.calls[index]?.[0]);
        await expect(value).resolves.toBe(path.startsWith(SUBSCRIBER_CHANGES_PREFIX));
      }
      expect(
        Buffer.from((await store.get(subscriberPath(ADA))) ?? []).equals(Buffer.from(before ?? [])),
      ).toBe(true);
      expect((await stored()).updatedAt).toBe(T0.toISOString());
    });

    it("an unsubscribed address that subscribes again is confirmed again: subscribed", async () => {
      await subscribe(store, { email: ADA, topics: ["AI"] }, T0);
      await unsubscribeSubscriber(store, id, T1);
      const again = await subscribe(store, { email: ADA, topics: ["Quantum"] }, T2);
      expect(again.status).toBe("subscribed");
      expect(await stored()).toMatchObject({
        topics: ["AI", "Quantum"],
        status: "confirmed",
        confirmedAt: T2.toISOString(),
        unsubscribedAt: T1.toISOString(),
      });
    });

    it("gives exactly one 'subscribed' to 20 concurrent first requests", async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => subscribe(store, { email: ADA, topics: ["AI"] }, T0)),
      );
      const statuses = results.map((result) => result.status);
      expect(statuses.filter((status) => status === "subscribed")).toHaveLength(1);
      expect(statuses.filter((status) => status === "already-subscribed")).toHaveLength(19);
    });

    it("subscribes again when the record is removed between a failed create and the read", async () => {
      await subscribe(store, { email: ADA, topics: ["AI"] }, T0);
      const getVersioned = store.getVersioned.bind(store);
      let first = true;
      vi.spyOn(store, "getVersioned").mockImplementation(async (path, options) => {
        if (first) {
          first = false;
          await store.delete(path); // ops removed the address just now
        }
        return getVersioned(path, options);
      });
      expect((await subscribe(store, { email: ADA, topics: ["Quantum"] }, T1)).status).toBe("subscribed");
      expect(await stored()).toMatchObject({ topics: ["Quantum"], subscribedAt: T1.toISOString() });
    });
  });

  describe("consent evidence", () => {
    const HASH = "a".repeat(64);
    const request = {
      email: ADA,
      topics: [] as Topic[],
      page: "/work?utm=x",
      site: "same-origin" as const,
      ipHash: HASH,
    };

    it("single opt-in: when, how, the page, the client's hash and the human check, no confirmedAt", async () => {
      await subscribe(store, { ...request, verification: "passed" }, T0);
      expect((await stored()).consent).toEqual({
        at: T0.toISOString(),
        method: "single",
        page: "/work?utm=x",
        site: "same-origin",
        ipHash: HASH,
        verification: "passed",
      });
      // A confirmed address asking again keeps the consent it gave.
      await subscribe(store, { email: ADA, topics: ["AI"], page: "/other", ipHash: "b".repeat(64) }, T1);
      expect((await stored()).consent).toMatchObject({ at: T0.toISOString(), page: "/work?utm=x" });
    });

    it("double opt-in: written at the request, confirmedAt added by the confirmation", async () => {
      await subscribe(store, { ...request, verification: "unavailable" }, T0, undefined, optIn);
      expect((await stored()).consent).toEqual({
        at: T0.toISOString(),
        method: "double",
        page: "/work?utm=x",
        site: "same-origin",
        ipHash: HASH,
        verification: "unavailable",
      });
      await confirmSubscriber(store, id, T1);
      expect((await stored()).consent).toEqual({
        at: T0.toISOString(),
        method: "double",
        page: "/work?utm=x",
        site: "same-origin",
        ipHash: HASH,
        verification: "unavailable",
        confirmedAt: T1.toISOString(),
      });
    });

    it("an address that left and asks again gives its consent anew", async () => {
      await subscribe(store, request, T0, undefined, optIn);
      await confirmSubscriber(store, id, T0);
      await unsubscribeSubscriber(store, id, T1);
      await subscribe(
        store,
        { email: ADA, topics: [], ipHash: null, site: "cross-site" },
        T2,
        undefined,
        optIn,
      );
      expect((await stored()).consent).toEqual({
        at: T2.toISOString(),
        method: "double",
        site: "cross-site",
        ipHash: null,
        verification: "off",
      });
    });
  });

  describe("double opt-in", () => {
    it("stores a new address as pending, unconfirmed", async () => {
      const result = await subscribe(store, { email: ADA, topics: ["AI"] }, T0, undefined, optIn);
      expect(result.status).toBe("pending");
      expect(await stored()).toEqual({
        email: ADA,
        topics: ["AI"],
        status: "pending",
        subscribedAt: T0.toISOString(),
        updatedAt: T0.toISOString(),
        confirmedAt: null,
        unsubscribedAt: null,
        verification: "off",
        consent: {
          at: T0.toISOString(),
          method: "double",
          site: "unknown",
          ipHash: null,
          verification: "off",
        },
        revision: REVISION,
      });
    });

    it("a pending address asking again stays pending, topics merged; nothing new writes nothing", async () => {
      await subscribe(store, { email: ADA, topics: ["AI"] }, T0, undefined, optIn);
      const put = vi.spyOn(store, "putIfVersion");
      expect((await subscribe(store, { email: ADA, topics: ["AI"] }, T1, undefined, optIn)).status).toBe(
        "pending",
      );
      expect(put).not.toHaveBeenCalled();
      expect(
        (await subscribe(store, { email: ADA, topics: ["Research"] }, T1, undefined, optIn)).status,
      ).toBe("pending");
      expect(await stored()).toMatchObject({ status: "pending", topics: ["AI", "Research"] });
    });

    it("confirm: pending -> confirmed with confirmedAt; again: already-subscribed, unchanged", async () => {
      await subscribe(store, { email: ADA, topics: ["AI"] }, T0, undefined, optIn);
      const confirmed = await confirmSubscriber(store, id, T1);
      expect(confirmed.outcome).toBe("confirmed");
      const record = await stored();
      expect(record).toMatchObject({
        status: "confirmed",
        confirmedAt: T1.toISOString(),
        updatedAt: T1.toISOString(),
      });
      expect((await confirmSubscriber(store, id, T2)).outcome).toBe("already-subscribed");
      expect(await stored()).toEqual(record);
      // A confirmed address subscribing again: already-subscribed, topics merged, still confirmed.
      const again = await subscribe(store, { email: ADA, topics: ["Quantum"] }, T2, undefined, optIn);
      expect(again.status).toBe("already-subscribed");
      expect(await stored()).toMatchObject({ status: "confirmed", topics: ["AI", "Quantum"] });
    });

    it("unsubscribe: -> unsubscribed with unsubscribedAt, idempotent; a missing subscriber is left alone", async () => {
      await subscribe(store, { email: ADA, topics: ["AI"] }, T0, undefined, optIn);
      await confirmSubscriber(store, id, T1);
      expect(await unsubscribeSubscriber(store, id, T2)).toMatchObject({ previous: "confirmed" });
      const record = await stored();
      expect(record).toMatchObject({
        status: "unsubscribed",
        unsubscribedAt: T2.toISOString(),
        topics: ["AI"],
      });
      expect(await unsubscribeSubscriber(store, id, T2)).toMatchObject({ previous: "unsubscribed" });
      expect(await stored()).toEqual(record);
      const nobody = subscriberId("nobody@example.com");
      expect(await unsubscribeSubscriber(store, nobody, T2)).toEqual({ previous: null, record: null });
      expect(await store.get(subscriberPath("nobody@example.com"))).toBeNull();
    });

    it("an unsubscribed address is not confirmed by an older link, but asking again makes it pending", async () => {
      await subscribe(store, { email: ADA, topics: ["AI"] }, T0, undefined, optIn);
      await unsubscribeSubscriber(store, id, T1);
      expect((await confirmSubscriber(store, id, T1)).outcome).toBe("not-pending");
      expect((await stored()).status).toBe("unsubscribed");
      expect((await subscribe(store, { email: ADA, topics: [] }, T2, undefined, optIn)).status).toBe(
        "pending",
      );
      expect(await stored()).toMatchObject({ status: "pending", unsubscribedAt: T1.toISOString() });
      expect((await confirmSubscriber(store, subscriberId("nobody@example.com"), T2)).outcome).toBe(
        "not-pending",
      );
    });

    it("20 concurrent confirms: one confirms, 19 answer already-subscribed, one whole record", async () => {
      await subscribe(store, { email: ADA, topics: ["AI"] }, T0, undefined, optIn);
      const results = await Promise.all(Array.from({ length: 20 }, () => confirmSubscriber(store, id, T1)));
      const outcomes = results.map((result) => result.outcome);
      expect(outcomes.filter((outcome) => outcome === "confirmed")).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === "already-subscribed")).toHaveLength(19);
      expect(await stored()).toMatchObject({
        status: "confirmed",
        confirmedAt: T1.toISOString(),
        topics: ["AI"],
      });
    });

    it("a confirm racing an unsubscribe: whichever goes first, the unsubscribe is never lost", async () => {
      for (let round = 0; round < 6; round++) {
        const email = `race${round}@example.com`;
        const raceId = subscriberId(email);
        await subscribe(store, { email, topics: ["AI"] }, T0, undefined, optIn);
        const [confirmed, unsubscribed] = await Promise.all([
          confirmSubscriber(store, raceId, T1),
          unsubscribeSubscriber(store, raceId, T2),
        ]);
        const record = await stored(email);
        expect(record).toMatchObject({ email, status: "unsubscribed", unsubscribedAt: T2.toISOString() });
        if (confirmed.outcome === "confirmed") {
          // The confirm landed first, and the unsubscribe was applied on top of it.
          expect(unsubscribed.previous).toBe("confirmed");
          expect(record.confirmedAt).toBe(T1.toISOString());
        } else {
          expect(confirmed.outcome).toBe("not-pending");
          expect(unsubscribed.previous).toBe("pending");
          expect(record.confirmedAt).toBeNull();
        }
      }
    });
  });

  it("concurrent topic merges lose nothing: 8 requests, each adding one topic, at once", async () => {
    await subscribe(store, { email: ADA, topics: [] }, T0);
    const results = await Promise.all(
      NEWSLETTER_TOPICS.map((topic) => subscribe(store, { email: ADA, topics: [topic] }, T1)),
    );
    expect(results.every((result) => result.status === "already-subscribed")).toBe(true);
    expect([...(await stored()).topics].sort()).toEqual([...NEWSLETTER_TOPICS].sort());
  });

  it("a topic merge racing a confirm and an unsubscribe keeps all three changes", async () => {
    await subscribe(store, { email: ADA, topics: ["AI"] }, T0, undefined, optIn);
    await confirmSubscriber(store, id, T0);
    await Promise.all([
      subscribe(store, { email: ADA, topics: ["Quantum"] }, T1, undefined, optIn),
      subscribe(store, { email: ADA, topics: ["Research"] }, T1, undefined, optIn),
      unsubscribeSubscriber(store, id, T2),
    ]);
    const record = await stored();
    expect([...record.topics].sort()).toEqual(["AI", "Quantum", "Research"]);
    expect(record.unsubscribedAt).toBe(T2.toISOString());
    // Unsubscribed last, or asked again after it (pending): never confirmed against the unsubscribe.
    expect(["unsubscribed", "pending"]).toContain(record.status);
  });
});

describe("subscribers on a store that fails", () => {
  it("answers 503 when the store cannot be written", async () => {
    const file = join(dir, "not-a-directory");
    await writeFile(file, "");
    vi.spyOn(console, "error").mockImplementation(() => {});
    const broken: ObjectStore = new FilesystemStore(join(file, "inbox"));
    const error = await subscribe(
      broken,
      { email: "ada@example.com", topics: [], verification: "off" },
      T0,
    ).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).code).toBe("storage_unavailable");
  });

  it("refuses to overwrite a record it cannot read, leaving it as it is", async () => {
    const store = new FilesystemStore(join(dir, "inbox"));
    const path = join(store.root, subscriberPath("ada@example.com"));
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, "{ not json");
    const error = await subscribe(
      store,
      { email: "ada@example.com", topics: ["AI"], verification: "off" },
      T1,
    ).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ApiError); // a fault for the logs: answered as 500
    expect(await readFile(path, "utf8")).toBe("{ not json");
  });

  it("keeps fields it does not know through every change", async () => {
    const store = new FilesystemStore(join(dir, "inbox"));
    await subscribe(store, { email: "ada@example.com", topics: ["AI"] }, T0, undefined, optIn);
    const path = join(store.root, subscriberPath("ada@example.com"));
    const record = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    await writeFile(path, JSON.stringify({ ...record, verification: "passed" }));
    await subscribe(store, { email: "ada@example.com", topics: ["Quantum"] }, T1, undefined, optIn);
    await confirmSubscriber(store, subscriberId("ada@example.com"), T1);
    await unsubscribeSubscriber(store, subscriberId("ada@example.com"), T2);
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({
      status: "unsubscribed",
      topics: ["AI", "Quantum"],
      verification: "passed",
    });
  });

  it("confirms a pending record written before consent evidence existed without making one up", async () => {
    const store = new FilesystemStore(join(dir, "inbox"));
    const path = join(store.root, subscriberPath("ada@example.com"));
    await mkdir(join(path, ".."), { recursive: true });
    const old = {
      email: "ada@example.com",
      topics: ["AI"],
      status: "pending",
      subscribedAt: T0.toISOString(),
      updatedAt: T0.toISOString(),
      confirmedAt: null,
      unsubscribedAt: null,
    };
    await writeFile(path, JSON.stringify(old));
    expect((await confirmSubscriber(store, subscriberId("ada@example.com"), T1)).outcome).toBe("confirmed");
    const record = JSON.parse(await readFile(path, "utf8")) as SubscriberRecord;
    expect(record).toMatchObject({ status: "confirmed", confirmedAt: T1.toISOString() });
    expect(record.consent).toBeUndefined();
  });

  it("reads a record written before statuses existed as confirmed, and keeps it so", async () => {
    const store = new FilesystemStore(join(dir, "inbox"));
    const path = join(store.root, subscriberPath("ada@example.com"));
    await mkdir(join(path, ".."), { recursive: true });
    const legacy = {
      email: "ada@example.com",
      topics: ["AI"],
      subscribedAt: T0.toISOString(),
      updatedAt: T0.toISOString(),
    };
    await writeFile(path, JSON.stringify(legacy));
    const result = await subscribe(
      store,
      { email: "ada@example.com", topics: ["Quantum"] },
      T1,
      undefined,
      optIn,
    );
    expect(result.status).toBe("already-subscribed");
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({
      ...legacy,
      topics: ["AI", "Quantum"],
      status: "confirmed",
      updatedAt: T1.toISOString(),
      confirmedAt: T0.toISOString(),
      unsubscribedAt: null,
      revision: REVISION,
    });
  });
});

describe("requestSubscription under single opt-in without confirmation emails", () => {
  const ADA = "ada@example.com";
  const services = (store: ObjectStore): NewsletterServices => ({
    config: { siteOrigin: "https://studio.example", newsletterDoubleOptIn: false },
    store,
    visitorMailer: null,
    links: null,
    cooldowns: createCooldowns(parseConfig({})),
    subscriberEvents: null,
  });

  it("a cross-site request is stored as today, confirmed, its record saying cross-site", async () => {
    const store = new FilesystemStore(dir);
    const status = await requestSubscription(
      services(store),
      { email: ADA, topics: [], site: "cross-site" },
      T0,
    );
    expect(status).toBe("subscribed");
    const record = JSON.parse(await readFile(join(dir, subscriberPath(ADA)), "utf8")) as SubscriberRecord;
    expect(record.status).toBe("confirmed");
    expect(record.consent).toMatchObject({ method: "single", site: "cross-site" });
  });
});
