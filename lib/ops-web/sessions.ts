import { createHash, randomBytes } from "node:crypto";
import type { RedisClient } from "../ratelimit/upstash";
import { createIfAbsent, type ObjectStore, StoreUnavailableError } from "../store";

/**
 * Where the inbox on the web keeps what must be shared by every instance and be revocable: the
 * sessions (only a hash of each id, never the id the cookie carries), an index of each address's
 * sessions (under the address's sha256, never the address), and the sign-in links already spent.
 * In Redis when it is configured (keys expire on their own), else in the inbox store.
 * Both fail closed: a store that cannot answer is a 503, never a session.
 */

/** The longest session: the cookie's `Max-Age`, and the server's own expiry. */
export const SESSION_MAX_AGE_S = 43_200;

export interface OpsSession {
  /** The signed-in address, lowercased, as `OPS_EMAILS` lists it. */
  email: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  expiresAt: string;
  /** The last request the session was used for, to the minute: it ends after 2 hours idle. */
  lastSeenAt: string;
}

export interface SessionStore {
  readonly driver: "redis" | "inbox";
  /** Keeps a new session, indexed under its address. */
  save(idHash: string, session: OpsSession, ttlSeconds: number): Promise<void>;
  find(idHash: string): Promise<OpsSession | null>;
  /**
   * Rewrites a session that still exists (a later `lastSeenAt`); `false`, and nothing written,
   * when it has ended meanwhile: a request in flight never brings back a session signed out.
   */
  touch(idHash: string, session: OpsSession, ttlSeconds: number): Promise<boolean>;
  end(idHash: string, email: string): Promise<void>;
  /** The hashes of the sessions indexed under `email`; some may have ended on their own. */
  sessionsOf(email: string): Promise<string[]>;
}

/** Records that a one-time link was used; `true` only for the first use of `jti`. Atomic. */
export interface SpentLinks {
  spend(jti: string, ttlSeconds: number): Promise<boolean>;
}

export function hashId(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/** What an address's sessions are filed under: the same sha256 of it that a sign-in link names. */
function ownerId(email: string): string {
  return hashId(email.trim().toLowerCase());
}

const SESSION_HASH = /^[0-9a-f]{64}$/;

function parseSession(text: string | null): OpsSession | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<OpsSession>;
    if (
      typeof value.email === "string" &&
      typeof value.createdAt === "string" &&
      typeof value.expiresAt === "string"
    ) {
      // A session kept before sessions recorded their use counts as idle since it started.
      const lastSeenAt = typeof value.lastSeenAt === "string" ? value.lastSeenAt : value.createdAt;
      return { email: value.email, createdAt: value.createdAt, expiresAt: value.expiresAt, lastSeenAt };
    }
  } catch {
    // not a session
  }
  return null;
}

/** Turns a Redis client's failure into the store's: answered as 503, never as "no session". */
async function redisCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new StoreUnavailableError("Redis did not answer", { cause: error });
  }
}

export class RedisSessionStore implements SessionStore, SpentLinks {
  readonly driver = "redis";

  constructor(private readonly redis: RedisClient) {}

  private key(idHash: string): string {
    return `intake:ops:session:${idHash}`;
  }

  /** A set of the address's session hashes, kept as long as its newest session can live. */
  private index(email: string): string {
    return `intake:ops:sessions-of:${ownerId(email)}`;
  }

  async save(idHash: string, session: OpsSession, ttlSeconds: number): Promise<void> {
    const index = this.index(session.email);
    const writes = (await this.redis()).multi();
    writes.set(this.key(idHash), JSON.stringify(session), { ex: ttlSeconds });
    writes.sadd(index, idHash);
    // Every session ends within its 12 hours, the newest last: the index outlives them all.
    writes.expire(index, SESSION_MAX_AGE_S);
    await redisCall(() => writes.exec());
  }

  async find(idHash: string): Promise<OpsSession | null> {
    // The client decodes JSON values itself: ask for the raw string back.
    const redis = await this.redis();
    const value = await redisCall(() => redis.get<unknown>(this.key(idHash)));
    return parseSession(value === null ? null : typeof value === "string" ? value : JSON.stringify(value));
  }

  async touch(idHash: string, session: OpsSession, ttlSeconds: number): Promise<boolean> {
    const redis = await this.redis();
    const answer = await redisCall(() =>
      redis.set(this.key(idHash), JSON.stringify(session), { xx: true, ex: ttlSeconds }),
    );
    return answer === "OK";
  }

  async end(idHash: string, email: string): Promise<void> {
    const writes = (await this.redis()).multi();
    writes.del(this.key(idHash));
    writes.srem(this.index(email), idHash);
    await redisCall(() => writes.exec());
  }

  async sessionsOf(email: string): Promise<string[]> {
    const redis = await this.redis();
    const members = await redisCall(() => redis.smembers<unknown[]>(this.index(email)));
    return members.map(String).filter((member) => SESSION_HASH.test(member));
  }

  async spend(jti: string, ttlSeconds: number): Promise<boolean> {
    const redis = await this.redis();
    const answer = await redisCall(() =>
      redis.set(`intake:ops:spent:${jti}`, "1", { nx: true, ex: ttlSeconds }),
    );
    return answer === "OK";
  }
}

/**
 * `ops/sessions/<hash>.json`, an empty marker `ops/session-index/<address's sha256>/<hash>.json`
 * for each, and `ops/spent-links/<jti>.json` in the inbox store.
 */
export class InboxSessionStore implements SessionStore, SpentLinks {
  readonly driver = "inbox";

  constructor(private readonly store: ObjectStore) {}

  private path(idHash: string): string {
    return `ops/sessions/${idHash}.json`;
  }

  private indexFolder(email: string): string {
    return `ops/session-index/${ownerId(email)}/`;
  }

  async save(idHash: string, session: OpsSession): Promise<void> {
    // The marker first: a session is never kept where signing out everywhere cannot find it.
    await this.store.put(`${this.indexFolder(session.email)}${idHash}.json`, "{}", "application/json");
    await this.store.put(this.path(idHash), JSON.stringify(session), "application/json");
  }

  async find(idHash: string): Promise<OpsSession | null> {
    const bytes = await this.store.get(this.path(idHash), { maxBytes: 4_096 });
    return parseSession(bytes === null ? null : Buffer.from(bytes).toString("utf8"));
  }

  async touch(idHash: string, session: OpsSession): Promise<boolean> {
    const current = await this.store.getVersioned(this.path(idHash), { maxBytes: 4_096 });
    if (current === null) return false;
    const body = JSON.stringify(session);
    if (await this.store.putIfVersion(this.path(idHash), body, "application/json", current.version))
      return true;
    // Another request of the same session wrote its use first: it is still on unless it ended.
    return (await this.find(idHash)) !== null;
  }

  async end(idHash: string, email: string): Promise<void> {
    // Conditional, like `touch`, so the two never interleave into a session written back after
    // its end; a session is touched at most once a minute, so a few tries always get through.
    let gone = false;
    for (let attempt = 0; attempt < 5 && !gone; attempt++) {
      const current = await this.store.getVersioned(this.path(idHash), { maxBytes: 4_096 });
      gone = current === null || (await this.store.deleteIfVersion(this.path(idHash), current.version));
    }
    if (!gone) await this.store.delete(this.path(idHash));
    await this.store.delete(`${this.indexFolder(email)}${idHash}.json`);
  }

  async sessionsOf(email: string): Promise<string[]> {
    const hashes: string[] = [];
    for await (const info of this.store.list(this.indexFolder(email))) {
      const name = info.path.slice(info.path.lastIndexOf("/") + 1).replace(/\.json$/, "");
      if (SESSION_HASH.test(name)) hashes.push(name);
    }
    return hashes;
  }

  async spend(jti: string): Promise<boolean> {
    // A nonce of this call's own: a retried create that meets its own write still counts as ours,
    // and a concurrent spender's never does.
    const { created } = await createIfAbsent(
      this.store,
      `ops/spent-links/${jti}.json`,
      JSON.stringify({ jti, spentAt: new Date().toISOString(), nonce: randomBytes(12).toString("hex") }),
      "application/json",
    );
    return created;
  }
}
