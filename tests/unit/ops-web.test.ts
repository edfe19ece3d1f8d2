import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { ApiError } from "@/lib/http/errors";
import { FilesystemStore } from "@/lib/inbox/filesystem";
import { LinkSigner } from "@/lib/links";
import { readAudit } from "@/lib/ops/audit";
import { InboxSessionStore } from "@/lib/ops-web/sessions";
import { liveSession, type OpsServices, safeNext, sessionCookie, startSession } from "@/lib/ops-web/sign-in";
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
});
