import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { createStore, type ObjectStore } from "@/lib/store";
import { blobEnv } from "../support/blob-app";
import { routeBlobStorageTo } from "../support/blob-routing.mjs";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { makePdf, TEN_MIB } from "../support/files";
import { LINK_SECRET } from "../support/opt-in";
import { attachmentFor, readJson, storeBrief } from "../support/ops";
import {
  addressIdOf,
  newSessionId,
  opsFetch,
  postSession,
  requestLink,
  sessionRecord,
  signIn,
  signInLink,
  signInQuietly,
  tokenIn,
} from "../support/ops-web";
import { type RedisServer, startRedis } from "../support/redis";
import { type AppServer, startApp } from "../support/server";
import { type SmtpTestServer, startSmtpServer } from "../support/smtp";
import { startUpstashBridge, type UpstashBridge } from "../support/upstash-bridge";

/**
 * The inbox on the web on the Vercel Blob inbox (the stand-in, through the real SDK) with Redis
 * configured (a real redis-server behind the Upstash REST bridge): sessions and spent links live
 * in Redis, the attachment streams from Blob, and state.json is written with Blob's conditional
 * writes.
 */

const OPS = "ops@studio.example";
const PRODUCER = "producer@studio.example";

let standIn: BlobStandIn;
let restoreDispatcher: () => void;
const savedApiUrl = process.env.VERCEL_BLOB_API_URL;
let redis: RedisServer;
let bridge: UpstashBridge;
let smtp: SmtpTestServer;
let app: AppServer;
let store: ObjectStore;
let brief: Awaited<ReturnType<typeof storeBrief>>;
const pdf = makePdf("Ten mebibytes of brief.", { size: TEN_MIB });

beforeAll(async () => {
  standIn = await startBlobStandIn();
  process.env.VERCEL_BLOB_API_URL = standIn.apiUrl;
  restoreDispatcher = routeBlobStorageTo(standIn.origin);
  store = createStore(parseConfig({ BLOB_READ_WRITE_TOKEN: standIn.token }));
  brief = await storeBrief(store, {
    receivedAt: "2026-11-20T09:00:00.000Z",
    attachment: attachmentFor(pdf, "big brief.pdf", "application/pdf", "pdf"),
    delivery: {},
  });
  redis = await startRedis();
  bridge = await startUpstashBridge(redis.port);
  smtp = await startSmtpServer();
  app = await startApp({
    ...blobEnv(standIn.token, standIn.origin),
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: bridge.token,
    OPS_EMAILS: `${OPS},${PRODUCER}`,
    LINK_SIGNING_SECRET: LINK_SECRET,
    SMTP_URL: smtp.url,
    EMAIL_FROM: "Northwind Studio <intake@studio.example>",
  });
});

afterAll(async () => {
  await app?.stop();
  await smtp?.stop();
  await bridge?.close();
  await redis?.stop();
  restoreDispatcher?.();
  if (savedApiUrl === undefined) delete process.env.VERCEL_BLOB_API_URL;
  else process.env.VERCEL_BLOB_API_URL = savedApiUrl;
  await standIn?.close();
});

async function redisKeys(pattern: string): Promise<string[]> {
  const client = await redis.connect();
  try {
    const reply = (await client.command(["KEYS", pattern])) as unknown as (Buffer | string)[];
    return reply.map((key) => key.toString());
  } finally {
    client.close();
  }
}

describe("the inbox on the web on Vercel Blob with Redis", () => {
  it("keeps sessions and spent links in Redis, never in the store; a link works once; sign-out ends the session", async () => {
    await requestLink(app, OPS);
    const link = await signInLink(smtp, OPS);
    const first = await postSession(app, tokenIn(link));
    expect(first.status).toBe(200);
    expect((await postSession(app, tokenIn(link))).status).toBe(422);
    const [session] = await redisKeys("intake:ops:session:*");
    expect(session).toMatch(/^intake:ops:session:[0-9a-f]{64}$/);
    expect(await redisKeys("intake:ops:spent:*")).toHaveLength(1);
    expect([...standIn.objects.keys()].filter((path) => path.startsWith("ops/"))).toEqual([]);

    const cookie = /__Host-ops_session=[^;]+/.exec(first.headers.get("set-cookie") ?? "")?.[0] ?? "";
    // The cookie carries the id; Redis only its hash.
    expect(session).not.toContain(cookie.split("=")[1]);
    expect((await opsFetch(app, "/inbox", cookie)).status).toBe(200);
    const out = await opsFetch(app, "/api/ops/sign-out", cookie, {
      method: "POST",
      headers: { origin: app.url },
    });
    expect(out.status).toBe(200);
    expect(await redisKeys("intake:ops:session:*")).toEqual([]);
    expect((await opsFetch(app, "/inbox", cookie)).status).toBe(307);
  });

  it("streams a 10 MiB attachment from Blob, byte for byte, with the contract's headers", async () => {
    const cookie = await signIn(app, smtp, PRODUCER);
    const response = await opsFetch(app, `/inbox/${brief.record.reference}/attachment`, cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''big%20brief.pdf");
    expect(response.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.byteLength).toBe(TEN_MIB);
    expect(bytes.equals(Buffer.from(pdf))).toBe(true);
    expect((await opsFetch(app, "/inbox/K7QM-3XD9-PTWA-84HD/attachment", cookie)).status).toBe(404);
  });

  it("two status saves at once on Blob are both kept in state.json", async () => {
    const cookie = await signIn(app, smtp, OPS);
    const reference = brief.record.reference;
    const answers = await Promise.all(
      (["handled", "archived"] as const).map((status) =>
        opsFetch(app, `/api/ops/briefs/${reference}/status`, cookie, { json: { status } }),
      ),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    const state = await readJson<{ history: { status: string }[] }>(store, `${brief.folder}/state.json`);
    expect(state?.history.map((change) => change.status).sort()).toEqual(["archived", "handled"]);
    const list = await (await opsFetch(app, "/inbox?status=new", cookie)).text();
    expect(list).not.toContain(reference);
  });

  it("a Blob store that does not answer is a 503 storage_unavailable, never a 500 nor a stack", async () => {
    const cookie = await signIn(app, smtp, OPS);
    standIn.fault = { status: 503 };
    try {
      const started = Date.now();
      for (const path of [`/inbox/${brief.record.reference}/attachment`, "/inbox/export.csv"]) {
        const response = await opsFetch(app, path, cookie);
        expect(response.status, path).toBe(503);
        expect(await response.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
      }
      const status = await opsFetch(app, `/api/ops/briefs/${brief.record.reference}/status`, cookie, {
        json: { status: "new" },
      });
      expect(status.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      standIn.fault = null;
    }
  });

  it("in Redis: an idle session ends, a used one is refreshed with a 2-hour expiry; sign out everywhere ends only the address's own", async () => {
    const client = await redis.connect();
    const key = (hash: string) => `intake:ops:session:${hash}`;
    try {
      const idle = newSessionId();
      const idleRecord = sessionRecord(OPS, { createdS: 3 * 3600, lastSeenS: 2 * 3600 + 60 });
      await client.command(["SET", key(idle.hash), JSON.stringify(idleRecord), "EX", "3600"]);
      expect((await opsFetch(app, "/inbox", idle.cookie)).status).toBe(307);
      expect(await client.command(["EXISTS", key(idle.hash)])).toBe(0);

      const active = newSessionId();
      const activeRecord = sessionRecord(OPS, { createdS: 3 * 3600, lastSeenS: 600 });
      await client.command(["SET", key(active.hash), JSON.stringify(activeRecord), "EX", "3600"]);
      const started = Date.now();
      expect((await opsFetch(app, "/inbox", active.cookie)).status).toBe(200);
      const stored = JSON.parse(String(await client.command(["GET", key(active.hash)]))) as {
        lastSeenAt: string;
      };
      expect(Date.parse(stored.lastSeenAt)).toBeGreaterThanOrEqual(started - 1_000);
      expect(Number(await client.command(["TTL", key(active.hash)]))).toBeGreaterThan(7_100);
      expect(Number(await client.command(["TTL", key(active.hash)]))).toBeLessThanOrEqual(7_200);
    } finally {
      client.close();
    }

    const here = await signInQuietly(app, PRODUCER);
    const elsewhere = await signInQuietly(app, PRODUCER);
    const other = await signInQuietly(app, OPS);
    const indexes = await redisKeys("intake:ops:sessions-of:*");
    expect(indexes).toContain(`intake:ops:sessions-of:${addressIdOf(PRODUCER)}`);
    expect(indexes.join(" ")).not.toContain("producer");

    const out = await opsFetch(app, "/api/ops/sign-out/everywhere", here, {
      method: "POST",
      headers: { origin: app.url },
    });
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ ok: true, status: "signed-out" });
    for (const ended of [here, elsewhere]) expect((await opsFetch(app, "/inbox", ended)).status).toBe(307);
    expect((await opsFetch(app, "/inbox", other)).status).toBe(200);
    expect(await redisKeys(`intake:ops:sessions-of:${addressIdOf(PRODUCER)}`)).toEqual([]);
  });
});
