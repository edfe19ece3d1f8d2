import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { briefForm, postContact, validBrief } from "../support/contact";
import { type FaultProxy, type ProxiedRequest, startFaultProxy } from "../support/fault-proxy";
import { makePdf } from "../support/files";
import { postNewsletter } from "../support/newsletter";
import { type AppServer, startApp } from "../support/server";

/**
 * The Vercel Blob inbox behind a misbehaving network, under `next start`: a proxy between the app
 * and the stand-in holds requests and forwards them late (the store then writes them, though the
 * app stopped waiting), forwards writes and drops their answers, and the stand-in refuses calls.
 * Whatever happens, the visitor's answer comes within the contract's 10 s, and the store ends up
 * holding exactly what the answer said: no brief or subscriber the visitor was told had failed,
 * never a brief.json without its attachment, and a first subscription is never taken for a second.
 */

const CONTRACT_MS = 10_000;
/** Longer than any request's deadline: a write held this long lands after its 503. */
const LATE_MS = 12_000;

let standIn: BlobStandIn;
let proxy: FaultProxy;
let app: AppServer;

beforeAll(async () => {
  standIn = await startBlobStandIn();
  proxy = await startFaultProxy(standIn.origin);
  app = await startApp(blobEnv(standIn.token, proxy.origin));
});

afterAll(async () => {
  await app?.stop();
  await proxy?.close();
  await standIn?.close();
});

beforeEach(() => {
  standIn.fault = null;
  proxy.rules.length = 0;
});

afterEach(async () => {
  proxy.rules.length = 0;
  standIn.fault = null;
  await proxy.idle();
});

const isPut = (suffix: string) => (request: ProxiedRequest) =>
  request.method === "PUT" && !!request.pathname?.endsWith(suffix);

const subscriberPath = (email: string) =>
  `newsletter/subscribers/${createHash("sha256").update(email.toLowerCase()).digest("hex")}.json`;

/** The objects the stand-in holds now that it did not hold in `before`. */
function added(before: Set<string>): string[] {
  return [...standIn.objects.keys()].filter((path) => !before.has(path)).sort();
}

/** Waits until `check` passes (it throws until then), for at most `ms`. */
async function eventually(check: () => void, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function timed(response: Promise<Response>): Promise<{ response: Response; ms: number }> {
  const started = Date.now();
  const result = await response;
  return { response: result, ms: Date.now() - started };
}

describe("writes that hang and land after the answer", () => {
  it("a brief.json that lands after the 503 is undone, and its attachment with it", async () => {
    proxy.rules.push({ match: isPut("/brief.json"), delayMs: LATE_MS, times: 1 });
    const before = new Set(standIn.objects.keys());
    const { response, ms } = await timed(
      postContact(app.url, briefForm(validBrief(), { bytes: makePdf(), name: "brief.pdf" })),
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
    expect(ms).toBeLessThan(CONTRACT_MS);

    // The held write reaches the store after the answer...
    await proxy.idle();
    const landed = proxy.seen.find((entry) => isPut("/brief.json")(entry.request));
    expect(landed?.forwardedAt).not.toBeNull();
    // ...and is removed again, brief.json and then the attachment: nothing of the brief remains.
    await eventually(() => expect(added(before)).toEqual([]), 10_000);
  });

  it("a first subscriber record that lands after the 503 is removed again", async () => {
    const email = "late.lander@example.com";
    proxy.rules.push({ match: isPut(subscriberPath(email)), delayMs: LATE_MS, times: 1 });
    const { response, ms } = await timed(postNewsletter(app.url, { email, topics: ["AI"] }));
    expect(response.status).toBe(503);
    expect(ms).toBeLessThan(CONTRACT_MS);

    await proxy.idle();
    expect(
      proxy.seen.find((entry) => entry.request.pathname === subscriberPath(email))?.forwardedAt,
    ).not.toBe(null);
    await eventually(() => expect(standIn.objects.has(subscriberPath(email))).toBe(false), 10_000);
    // The address can subscribe again, and that is a first subscription.
    const again = await postNewsletter(app.url, { email, topics: ["AI"] });
    expect(await again.json()).toEqual({ ok: true, status: "subscribed" });
  });
});

describe("a store that answers every call late", () => {
  it("adding a topic to a known address answers 503 within 10 s, not after two slow calls", async () => {
    const email = "slow.store@example.com";
    expect(await (await postNewsletter(app.url, { email, topics: ["AI"] })).json()).toEqual({
      ok: true,
      status: "subscribed",
    });
    proxy.rules.push({ match: () => true, delayMs: 6_000 });
    const { response, ms } = await timed(postNewsletter(app.url, { email, topics: ["Quantum"] }));
    expect(response.status).toBe(503);
    expect(ms).toBeLessThan(CONTRACT_MS);
  });
});

describe("answers lost after the store wrote", () => {
  it("a first subscription whose create answer was lost is still 'subscribed'", async () => {
    const email = "lost.answer@example.com";
    proxy.rules.push({ match: isPut(subscriberPath(email)), dropAnswer: true, times: 1 });
    const response = await postNewsletter(app.url, { email, topics: ["Research"] });
    expect(await response.json()).toEqual({ ok: true, status: "subscribed" });
    // The create did land the first time; the retry met it.
    expect(
      proxy.seen.filter((entry) => entry.request.pathname === subscriberPath(email)).length,
    ).toBeGreaterThan(1);
    expect(JSON.parse(standIn.objects.get(subscriberPath(email))?.body.toString() ?? "{}")).toMatchObject({
      email,
      topics: ["Research"],
    });
  });

  it("brief.json landed, its answer lost, and its removal refused: the attachment is kept until brief.json is gone", async () => {
    proxy.rules.push(
      { match: isPut("/brief.json"), dropAnswer: true },
      {
        match: ({ url, body }) => url.pathname.endsWith("/delete") && body.toString().includes("/brief.json"),
        status: 500,
      },
    );
    const before = new Set(standIn.objects.keys());
    const { response, ms } = await timed(
      postContact(app.url, briefForm(validBrief(), { bytes: makePdf(), name: "brief.pdf" })),
    );
    expect(response.status).toBe(503);
    expect(ms).toBeLessThan(CONTRACT_MS);

    // brief.json could not be removed, so the file it points at was not removed either, nor the
    // delivery.json (`{}`, no channel here) written just before it.
    const left = added(before);
    expect(left).toEqual([
      expect.stringMatching(/\/attachment\.pdf$/),
      expect.stringMatching(/\/brief\.json$/),
      expect.stringMatching(/\/delivery\.json$/),
    ]);
    const brief = JSON.parse(standIn.objects.get(left[1] ?? "")?.body.toString() ?? "{}") as {
      attachment: { filename: string };
    };
    expect(left[0]).toContain(brief.attachment.filename);

    // Once the store lets it, the undo is retried: brief.json goes, then the attachment.
    proxy.rules.length = 0;
    await eventually(() => expect(added(before)).toEqual([]), 20_000);
    const reference = left[1]?.split("/")[4] ?? "?";
    const deletes = standIn.requests
      .filter((request) => request.operation === "delete" && request.pathname?.includes(reference))
      .map((request) => request.pathname ?? "");
    expect(deletes.findIndex((path) => path.includes("/brief.json"))).toBeLessThan(
      deletes.findIndex((path) => path.includes("/attachment.pdf")),
    );
  });
});
