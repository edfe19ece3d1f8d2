import { createHash, randomBytes } from "node:crypto";
import type { Redis } from "@upstash/redis";
import { createIfAbsent, type ObjectStore, StoreUnavailableError } from "../inbox";

/**
 * Where the inbox on the web keeps what must be shared by every instance and be revocable: the
 * sessions (only a hash of each id, never the id the cookie carries) and the sign-in links already
 * spent. In Redis when it is configured (keys expire on their own), else in the inbox store.
 * Both fail closed: a store that cannot answer is a 503, never a session.
 */

export interface OpsSession {
  /** The signed-in address, lowercased, as `OPS_EMAILS` lists it. */
  email: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  expiresAt: string;
}

export interface SessionStore {
  readonly driver: "redis" | "inbox";
  save(idHash: string, session: OpsSession, ttlSeconds: number): Promise<void>;
  find(idHash: string): Promise<OpsSession | null>;
  end(idHash: string): Promise<void>;
}

/** Records that a one-time link was used; `true` only for the first use of `jti`. Atomic. */
export interface SpentLinks {
  spend(jti: string, ttlSeconds: number): Promise<boolean>;
}

export function hashId(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

function parseSession(text: string | null): OpsSession | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<OpsSession>;
    if (
      typeof value.email === "string" &&
      typeof value.createdAt === "string" &&
      typeof value.expiresAt === "string"
    ) {
      return { email: value.email, createdAt: value.createdAt, expiresAt: value.expiresAt };
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

  constructor(private readonly redis: Redis) {}

  async save(idHash: string, session: OpsSession, ttlSeconds: number): Promise<void> {
    await redisCall(() =>
      this.redis.set(`intake:ops:session:${idHash}`, JSON.stringify(session), { ex: ttlSeconds }),
    );
  }

  async find(idHash: string): Promise<OpsSession | null> {
    // The client decodes JSON values itself: ask for the raw string back.
    const value = await redisCall(() => this.redis.get<unknown>(`intake:ops:session:${idHash}`));
    return parseSession(value === null ? null : typeof value === "string" ? value : JSON.stringify(value));
  }

  async end(idHash: string): Promise<void> {
    await redisCall(() => this.redis.del(`intake:ops:session:${idHash}`));
  }

  async spend(jti: string, ttlSeconds: number): Promise<boolean> {
    const answer = await redisCall(() =>
      this.redis.set(`intake:ops:spent:${jti}`, "1", { nx: true, ex: ttlSeconds }),
    );
    return answer === "OK";
  }
}

/** `ops/sessions/<hash>.json` and `ops/spent-links/<jti>.json` in the inbox store. */
export class InboxSessionStore implements SessionStore, SpentLinks {
  readonly driver = "inbox";

  constructor(private readonly store: ObjectStore) {}

  private path(idHash: string): string {
    return `ops/sessions/${idHash}.json`;
  }

  async save(idHash: string, session: OpsSession): Promise<void> {
    await this.store.put(this.path(idHash), JSON.stringify(session), "application/json");
  }

  async find(idHash: string): Promise<OpsSession | null> {
    const bytes = await this.store.get(this.path(idHash), { maxBytes: 4_096 });
    return parseSession(bytes === null ? null : Buffer.from(bytes).toString("utf8"));
  }

  async end(idHash: string): Promise<void> {
    await this.store.delete(this.path(idHash));
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
