import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { afterResponse, type Deferral } from "@/lib/background";
import { parseConfig } from "@/lib/config";
import { LinkSigner } from "@/lib/links";
import { type OpsServices, requestSignInLink } from "@/lib/ops-web/sign-in";
import { MemoryRateLimiter } from "@/lib/ratelimit/memory";
import type { RateLimitDecision, RateLimiter } from "@/lib/ratelimit";
import { renderOpsSignIn, type VisitorMailer, type VisitorMessage } from "@/lib/visitor-email";
import { LINK_SECRET } from "../support/opt-in";

/**
 * Asking for a sign-in link: the answer must not depend on whether the address is listed, in what
 * it says or in how long it takes. So before the answer the library does no work at all for the
 * link, listed address or not; everything (the listed check, the address's budget, signing,
 * rendering, sending) is deferred until after the response.
 */

vi.mock("@/lib/visitor-email", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/visitor-email")>();
  return { ...actual, renderOpsSignIn: vi.fn(actual.renderOpsSignIn) };
});

const LISTED = "ops@studio.example";
const config = parseConfig({
  OPS_EMAILS: LISTED,
  LINK_SIGNING_SECRET: LINK_SECRET,
  SMTP_URL: "smtp://127.0.0.1:1",
  EMAIL_FROM: "intake@studio.example",
});
const rule = { limit: 5, windowMs: 900_000, source: "5/15m" };

/** A limiter that counts what it is asked and answers as `inner` does. */
function counted(inner: RateLimiter): RateLimiter & { consumed: string[] } {
  const consumed: string[] = [];
  return {
    driver: inner.driver,
    consumed,
    consume(subject) {
      consumed.push(subject);
      return inner.consume(subject);
    },
  };
}

/** A limiter that refuses everything, as the Redis one does while Redis is down (failing closed). */
const refusing: RateLimiter = {
  driver: "upstash",
  consume: async (): Promise<RateLimitDecision> => ({
    allowed: false,
    limit: 5,
    remaining: 0,
    resetAt: Date.now() + 60_000,
  }),
};

/** Reads of an object's properties, to see whether anything was even looked at. */
function watched<T extends object>(target: T, reads: string[], name: string): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      reads.push(`${name}.${String(key)}`);
      return Reflect.get(object, key, receiver) as unknown;
    },
  });
}

interface Probe {
  ops: OpsServices;
  config: typeof config;
  reads: string[];
  sent: VisitorMessage[];
  signed: () => number;
  address: ReturnType<typeof counted>;
  client: ReturnType<typeof counted>;
  storeCalls: () => number;
}

function probe(addressLimiter: RateLimiter = new MemoryRateLimiter(rule)): Probe {
  const reads: string[] = [];
  const sent: VisitorMessage[] = [];
  const links = new LinkSigner(LINK_SECRET, config.siteOrigin);
  const sign = vi.spyOn(links, "sign");
  const mailer = {
    send: async (message: VisitorMessage) => {
      sent.push(message);
    },
  } as unknown as VisitorMailer;
  const sessions = { driver: "inbox" as const, save: vi.fn(), find: vi.fn(), end: vi.fn() };
  const spentLinks = { spend: vi.fn() };
  const address = counted(addressLimiter);
  const client = counted(new MemoryRateLimiter(rule));
  const ops = {
    emails: config.ops?.emails ?? [],
    links,
    mailer,
    sessions,
    spentLinks,
    limits: { address, client },
  } as unknown as OpsServices;
  return {
    ops: watched(ops, reads, "ops"),
    config: watched(config, reads, "config"),
    reads,
    sent,
    signed: () => sign.mock.calls.length,
    address,
    client,
    storeCalls: () =>
      sessions.save.mock.calls.length +
      sessions.find.mock.calls.length +
      sessions.end.mock.calls.length +
      spentLinks.spend.mock.calls.length,
  };
}

/** Everything one probe has done so far. */
function workOf(probe: Probe) {
  return {
    reads: [...probe.reads],
    signed: probe.signed(),
    rendered: vi.mocked(renderOpsSignIn).mock.calls.length,
    sent: probe.sent.length,
    addressBudget: probe.address.consumed.length,
    clientBudget: probe.client.consumed.length,
    store: probe.storeCalls(),
  };
}

/** Asks for a link, keeping what was deferred to run by hand "after the response". */
function ask(probe: Probe, email: string): (() => Promise<unknown>)[] {
  const deferred: (() => Promise<unknown>)[] = [];
  const defer: Deferral = (task) => {
    deferred.push(task);
  };
  requestSignInLink(probe.ops, probe.config, email, "/inbox", defer);
  return deferred;
}

const NO_WORK = { reads: [], signed: 0, rendered: 0, sent: 0, addressBudget: 0, clientBudget: 0, store: 0 };

describe("requestSignInLink", () => {
  beforeEach(() => {
    vi.mocked(renderOpsSignIn).mockClear();
  });

  it("does no work for the link before the answer, listed or not; afterwards only a listed address gets one email", async () => {
    const listed = probe();
    const listedTasks = ask(listed, "OPS@studio.example");
    const listedBefore = workOf(listed);
    const unlisted = probe();
    const unlistedTasks = ask(unlisted, "stranger@client.example");
    const unlistedBefore = workOf(unlisted);

    expect(listedBefore).toEqual(NO_WORK);
    expect(unlistedBefore).toEqual(listedBefore);
    expect(listedTasks).toHaveLength(1);
    expect(unlistedTasks).toHaveLength(1);

    vi.mocked(renderOpsSignIn).mockClear();
    await Promise.all(listedTasks.map((task) => task()));
    expect(listed.sent.map((message) => message.to)).toEqual([LISTED]);
    expect(listed.sent[0]?.text).toContain(`${config.siteOrigin}/inbox/sign-in/confirm?token=`);
    expect(listed.signed()).toBe(1);
    expect(vi.mocked(renderOpsSignIn).mock.calls).toHaveLength(1);
    expect(listed.address.consumed).toEqual([LISTED]);

    vi.mocked(renderOpsSignIn).mockClear();
    await Promise.all(unlistedTasks.map((task) => task()));
    expect(unlisted.sent).toEqual([]);
    expect(unlisted.signed()).toBe(0);
    expect(vi.mocked(renderOpsSignIn).mock.calls).toHaveLength(0);
    // An unlisted address spends no budget: nothing is kept about it.
    expect(unlisted.address.consumed).toEqual([]);
    expect(unlisted.client.consumed).toEqual([]);
    expect(unlisted.storeCalls()).toBe(0);
  });

  it("sends a listed address at most 5 links per window, whoever asks; the rest are dropped silently", async () => {
    const listed = probe();
    const tasks = Array.from({ length: 7 }, () => ask(listed, LISTED)).flat();
    expect(listed.sent).toEqual([]);
    for (const task of tasks) await task();
    expect(listed.sent).toHaveLength(5);
    expect(listed.address.consumed).toHaveLength(7);
    expect(listed.signed()).toBe(5);
  });

  it("sends nothing when the address's limiter refuses (as the Redis one does while Redis is down)", async () => {
    const listed = probe(refusing);
    for (const task of ask(listed, LISTED)) await task();
    expect(listed.sent).toEqual([]);
    expect(listed.signed()).toBe(0);
  });

  it("sends nothing when the address's limiter fails", async () => {
    const listed = probe({
      driver: "upstash",
      consume: () => Promise.reject(new Error("Redis did not answer")),
    });
    const [task] = ask(listed, LISTED);
    await expect(task?.()).rejects.toThrow("Redis did not answer");
    expect(listed.sent).toEqual([]);
  });
});

describe("afterResponse outside a request", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("runs the task later, never before the caller goes on, and logs its failure", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    let ran = 0;
    afterResponse(async () => {
      ran += 1;
      throw new Error("smtp down");
    }, "sending a test");
    expect(ran).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toBe(1);
    expect(error).toHaveBeenCalledWith("[background] sending a test failed", expect.any(Error));
  });
});
