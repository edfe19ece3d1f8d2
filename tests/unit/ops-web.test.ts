import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseConfig } from "@/lib/config";
import { ApiError } from "@/lib/http/errors";
import { FilesystemStore } from "@/lib/store/filesystem";
import { LinkSigner } from "@/lib/links";
import { readAudit } from "@/lib/ops/audit";
import { hashId, InboxSessionStore } from "@/lib/ops-web/sessions";
import {
  endEverySession,
  liveSession,
  type OpsServices,
  safeNext,
  sessionCookie,
  startSession,
} from "@/lib/ops-web/sign-in";
import { MemoryRateLimiter } from "@/lib/ratelimit/memory";
import { VisitorMailer } from "@/lib/visitor-email";
import { forgeSignInToken } from "../support/ops-web";
import { LINK_SECRET } from "../support/opt-in";

/** Sign-in and sessions with the inbox store's driver (the Redis one is tested through next start). */

describe("safeNext: where signing in may lead", () => {
  it.each<[unknown, string]>([
    ["/inbox", "/inbox"],
    ["/inbox/K7QM-3XD9-PTWA-84HC?q=ada", "/inbox/K7QM-3XD9-PTWA-84HC?q=ada"],
    ["/inbox/spam", "/inbox/spam"],
    ["/inboxes", "/inbox"],
    ["/inbox/sign-in?next=/inbox", "/inbox"],
    ["https://evil.example/inbox", "/inbox"],
    ["//evil.example/inbox", "/inbox"],
    ["/inbox/..//evil.example", "/inbox"],
    ["/inbox\\..\\x", "/inbox"],
    ["/inbox/../api/ops/erase", "/inbox"],
    ["/", "/inbox"],
    [undefined, "/inbox"],
    [42, "/inbox"],
  ])("safeNext(%j) is %j", (next, expected) => {
    expect(safeNext(next)).toBe(expected);
  });
});

it("the session cookie has the contract's attributes, and ending it clears it", () => {
  expect(sessionCookie("abc")).toBe(
    "__Host-ops_session=abc; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=43200",
  );
  expect(sessionCookie(null)).toBe("__Host-ops_session=; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=0");
});

describe("startSession and liveSession on the inbox store", () => {
  let dir: string;
  let store: FilesystemStore;
  let ops: OpsServices;
  const env = {
    OPS_EMAILS: "ops@studio.example, producer@studio.example",
    LINK_SIGNING_SECRET: LINK_SECRET,
    SMTP_URL: "smtp://127.0.0.1:1",
    EMAIL_FROM: "intake@studio.example",
  };
  const config = parseConfig(env);
  const OPS_ADDRESS = "ops@studio.example";

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ops-web-"));
    store = new FilesystemStore(dir);
    const sessions = new InboxSessionStore(store);
    const rule = { limit: 5, windowMs: 900_000, source: "5/15m" };
    ops = {
      emails: config.ops?.emails ?? [],
      links: new LinkSigner(LINK_SECRET, config.siteOrigin),
      mailer: new VisitorMailer(
        { smtpUrl: env.SMTP_URL, from: { name: "", address: env.EMAIL_FROM } },
        1_000,
      ),
      sessions,
      spentLinks: sessions,
      limits: { address: new MemoryRateLimiter(rule), client: new MemoryRateLimiter(rule) },
    };
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("of concurrent uses of one link exactly one starts a session; the store keeps only the id's hash", async () => {
    const token = forgeSignInToken(config.siteOrigin, "OPS@studio.example", 900);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => startSession(ops, config, store, token)),
    );
    const started = results.filter((result) => result.status === "fulfilled");
    expect(started).toHaveLength(1);
    for (const result of results) {
      if (result.status === "rejected") {
        expect(result.reason).toBeInstanceOf(ApiError);
        expect((result.reason as ApiError).fields?.token).toContain("used");
      }
    }
    const { id, email } = (started[0] as PromiseFulfilledResult<{ id: string; email: string }>).value;
    expect(email).toBe("ops@studio.example");
    const files: string[] = [];
    for await (const info of store.list("ops/sessions/")) files.push(info.path);
    expect(files).toHaveLength(1);
    expect(files[0]).not.toContain(id);
    expect(await liveSession(ops, config, id)).toMatchObject({ email });
    expect((await readAudit(store)).map((entry) => entry.action)).toEqual(["sign-in"]);
  });

  it("a session ends when it expires or when its address leaves OPS_EMAILS", async () => {
    const now = new Date();
    const { id } = await startSession(
      ops,
      config,
      store,
      forgeSignInToken(config.siteOrigin, "producer@studio.example", 900),
      now,
    );
    expect(await liveSession(ops, config, id, now)).not.toBeNull();
    expect(await liveSession(ops, config, id, new Date(now.getTime() + 43_201_000))).toBeNull();
    expect(await liveSession(ops, config, id, now)).toBeNull(); // and it is gone from the store

    const second = await startSession(
      ops,
      config,
      store,
      forgeSignInToken(config.siteOrigin, "producer@studio.example", 900),
    );
    const without = parseConfig({ ...env, OPS_EMAILS: "ops@studio.example" });
    expect(await liveSession(ops, without, second.id)).toBeNull();
    expect(await liveSession(ops, config, second.id)).toBeNull();
    expect(await liveSession(ops, config, "not-an-id")).toBeNull();
  });

  const MINUTE = 60_000;
  const HOUR = 60 * MINUTE;
  const at = (start: Date, ms: number) => new Date(start.getTime() + ms);
  const sessionFile = async (id: string) =>
    JSON.parse(Buffer.from((await store.get(`ops/sessions/${hashId(id)}.json`)) ?? []).toString("utf8")) as {
      lastSeenAt: string;
    };

  it("a session ends after 2 hours without a request; its use is written at most once a minute", async () => {
    const start = new Date("2026-11-25T08:00:00.000Z");
    const { id } = await startSession(
      ops,
      config,
      store,
      forgeSignInToken(config.siteOrigin, OPS_ADDRESS, 900),
      start,
    );
    const writes = vi.spyOn(store, "putIfVersion");

    expect(await liveSession(ops, config, id, at(start, 30_000))).not.toBeNull();
    expect(await liveSession(ops, config, id, at(start, 59_000))).not.toBeNull();
    expect(writes).not.toHaveBeenCalled();
    expect((await sessionFile(id)).lastSeenAt).toBe(start.toISOString());

    const used = at(start, 61_000);
    expect(await liveSession(ops, config, id, used)).not.toBeNull();
    expect(writes).toHaveBeenCalledTimes(1);
    expect((await sessionFile(id)).lastSeenAt).toBe(used.toISOString());

    // Counted from the last use, not from the start.
    expect(await liveSession(ops, config, id, at(used, 2 * HOUR - 1_000))).not.toBeNull();
    const last = at(used, 2 * HOUR - 1_000);
    expect(await liveSession(ops, config, id, at(last, 2 * HOUR + 1_000))).toBeNull();
    expect(await store.get(`ops/sessions/${hashId(id)}.json`)).toBeNull();
    expect(await liveSession(ops, config, id, at(last, MINUTE))).toBeNull();
  });

  it("a session in use still ends 12 hours after it began", async () => {
    const start = new Date("2026-11-25T08:00:00.000Z");
    const { id } = await startSession(
      ops,
      config,
      store,
      forgeSignInToken(config.siteOrigin, OPS_ADDRESS, 900),
      start,
    );
    for (let used = 90 * MINUTE; used < 12 * HOUR; used += 90 * MINUTE) {
      expect(
        await liveSession(ops, config, id, at(start, used)),
        `after ${used / MINUTE} min`,
      ).not.toBeNull();
    }
    expect(await liveSession(ops, config, id, at(start, 12 * HOUR + 1_000))).toBeNull();
  });

  it("requests at once, a minute on, all find the session live, though their writes of its use collide", async () => {
    const start = new Date("2026-11-25T08:00:00.000Z");
    const { id } = await startSession(
      ops,
      config,
      store,
      forgeSignInToken(config.siteOrigin, OPS_ADDRESS, 900),
      start,
    );
    const later = at(start, 5 * MINUTE);
    const results = await Promise.all(Array.from({ length: 6 }, () => liveSession(ops, config, id, later)));
    for (const result of results) expect(result).toMatchObject({ email: OPS_ADDRESS });
    expect((await sessionFile(id)).lastSeenAt).toBe(later.toISOString());
  });

  it("a request's late write of its use never brings back a session ended meanwhile", async () => {
    const start = new Date();
    const { id } = await startSession(
      ops,
      config,
      store,
      forgeSignInToken(config.siteOrigin, OPS_ADDRESS, 900),
      start,
    );
    const idHash = hashId(id);
    const session = await ops.sessions.find(idHash);
    expect(session).not.toBeNull();
    await ops.sessions.end(idHash, OPS_ADDRESS);
    const seen = { ...session!, lastSeenAt: at(start, 2 * MINUTE).toISOString() };
    expect(await ops.sessions.touch(idHash, seen, 7_200)).toBe(false);
    expect(await ops.sessions.find(idHash)).toBeNull();
  });

  it("signing out everywhere ends every session of the address and no other, filed under its hash", async () => {
    const mine = await startSession(
      ops,
      config,
      store,
      forgeSignInToken(config.siteOrigin, OPS_ADDRESS, 900),
    );
    const elsewhere = await startSession(
      ops,
      config,
      store,
      forgeSignInToken(config.siteOrigin, OPS_ADDRESS, 900),
    );
    const idle = await startSession(
      ops,
      config,
      store,
      forgeSignInToken(config.siteOrigin, OPS_ADDRESS, 900),
      new Date(Date.now() - 3 * HOUR),
    );
    const theirs = await startSession(
      ops,
      config,
      store,
      forgeSignInToken(config.siteOrigin, "producer@studio.example", 900),
    );
    const paths: string[] = [];
    for await (const info of store.list("ops/")) paths.push(info.path);
    expect(paths.join("\n")).not.toMatch(/ops@|producer@|studio/);

    // The idle one was over already: 2 live sessions ended.
    expect(await endEverySession(ops, OPS_ADDRESS, hashId(mine.id))).toBe(2);
    for (const { id } of [mine, elsewhere, idle]) expect(await liveSession(ops, config, id)).toBeNull();
    expect(await liveSession(ops, config, theirs.id)).toMatchObject({ email: "producer@studio.example" });
    expect(await ops.sessions.sessionsOf(OPS_ADDRESS)).toEqual([]);
    expect(await ops.sessions.sessionsOf("producer@studio.example")).toEqual([hashId(theirs.id)]);
  });
});
