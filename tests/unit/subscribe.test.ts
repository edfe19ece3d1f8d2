import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "@/lib/http/errors";
import { FilesystemStore } from "@/lib/inbox/filesystem";
import type { ObjectStore } from "@/lib/inbox/types";
import { subscribe, subscriberPath, type SubscriberRecord } from "@/lib/newsletter";
import type { Topic } from "@/lib/schemas/newsletter";

let dir: string;
let store: FilesystemStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "subscribe-test-"));
  store = new FilesystemStore(join(dir, "inbox"));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const T0 = new Date("2026-03-01T10:00:00.000Z");
const T1 = new Date("2026-03-02T11:00:00.000Z");

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

async function stored(email: string): Promise<SubscriberRecord> {
  return JSON.parse(await readFile(join(store.root, subscriberPath(email)), "utf8")) as SubscriberRecord;
}

describe("subscriberPath", () => {
  it.each([
    ["ada@example.com", "ada@example.com"],
    ["Ada@Example.COM", "ada@example.com"],
    ["  ADA@EXAMPLE.COM ", "ada@example.com"],
  ])("names %j by the sha256 of %j", (email, key) => {
    expect(subscriberPath(email)).toBe(`newsletter/subscribers/${sha256(key)}.json`);
  });

  it("keeps different addresses apart", () => {
    expect(subscriberPath("ada@example.com")).not.toBe(subscriberPath("ada@example.org"));
  });
});

describe("subscribe", () => {
  it("creates the record on the first request", async () => {
    expect(
      await subscribe(
        store,
        { email: "Ada@Example.com", topics: ["AI", "Quantum"], verification: "passed" },
        T0,
      ),
    ).toBe("subscribed");
    expect(await stored("ada@example.com")).toEqual({
      email: "Ada@Example.com",
      topics: ["AI", "Quantum"],
      subscribedAt: T0.toISOString(),
      updatedAt: T0.toISOString(),
      verification: "passed",
      revision: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it("answers already-subscribed later, whatever the case, and keeps the first address form", async () => {
    await subscribe(store, { email: "Ada@Example.com", topics: [], verification: "off" }, T0);
    expect(await subscribe(store, { email: "ada@example.com", topics: [], verification: "off" }, T1)).toBe(
      "already-subscribed",
    );
    expect(await subscribe(store, { email: "ADA@EXAMPLE.COM", topics: [], verification: "off" }, T1)).toBe(
      "already-subscribed",
    );
    expect((await stored("ada@example.com")).email).toBe("Ada@Example.com");
  });

  it("merges new topics as a union and moves updatedAt, keeping how the subscription was checked", async () => {
    await subscribe(
      store,
      { email: "ada@example.com", topics: ["AI", "Research"], verification: "unavailable" },
      T0,
    );
    await subscribe(
      store,
      { email: "ada@example.com", topics: ["Research", "Quantum", "AI"], verification: "passed" },
      T1,
    );
    expect(await stored("ada@example.com")).toEqual({
      email: "ada@example.com",
      topics: ["AI", "Research", "Quantum"],
      subscribedAt: T0.toISOString(),
      updatedAt: T1.toISOString(),
      verification: "unavailable",
      revision: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it.each<[string, Topic[]]>([
    ["no topics", []],
    ["topics already held", ["Research"]],
  ])("does not write when the request adds nothing (%s)", async (_label, topics) => {
    await subscribe(store, { email: "ada@example.com", topics: ["AI", "Research"], verification: "off" }, T0);
    const put = vi.spyOn(store, "put");
    expect(await subscribe(store, { email: "ada@example.com", topics, verification: "off" }, T1)).toBe(
      "already-subscribed",
    );
    expect(put).not.toHaveBeenCalled();
    expect((await stored("ada@example.com")).updatedAt).toBe(T0.toISOString());
  });

  it("gives exactly one 'subscribed' to 20 concurrent first requests", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () =>
        subscribe(store, { email: "ada@example.com", topics: ["AI"], verification: "off" }, T0),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === "subscribed")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === "already-subscribed")).toHaveLength(19);
  });

  it("subscribes again when the record is removed between create and read", async () => {
    await subscribe(store, { email: "ada@example.com", topics: ["AI"], verification: "off" }, T0);
    const get = store.get.bind(store);
    vi.spyOn(store, "get").mockImplementationOnce(async (path) => {
      await store.delete(path); // ops unsubscribed the address just now
      return get(path);
    });
    expect(
      await subscribe(store, { email: "ada@example.com", topics: ["Quantum"], verification: "off" }, T1),
    ).toBe("subscribed");
    expect(await stored("ada@example.com")).toMatchObject({
      topics: ["Quantum"],
      subscribedAt: T1.toISOString(),
    });
  });

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
});
