import { randomBytes } from "node:crypto";
import { OutageLog } from "./outage";
import type { Cooldown, CooldownClaim } from "./types";
import {
  DEFAULT_SUBJECT_KEY,
  describeRedisFailure,
  describeRedisProblem,
  type RedisClient,
  subjectKey,
} from "./upstash";

/**
 * `Cooldown.claim` could not tell whether a window is open (Redis failed or was slow): unlike
 * `null` (a window is open), it says nothing about the subject, only that nothing may be sent.
 */
export class CooldownUnavailableError extends Error {
  override name = "CooldownUnavailableError";
}

/**
 * Runs what the claim was for; when that fails, gives the window back (so a retry, or the next
 * attempt, is not held back by an email that never went) and rethrows.
 */
export async function releasedOnFailure<T>(claim: CooldownClaim, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await claim.release();
    throw error;
  }
}

/** How many subjects one process tracks before it forgets the oldest windows. */
const MAX_SUBJECTS = 100_000;

/** A cooldown kept in this process: right for one `next start`, like `MemoryRateLimiter`. */
export class MemoryCooldown implements Cooldown {
  readonly driver = "memory";
  /** Subject -> when its window ends and which claim opened it; in the order opened. */
  private readonly windows = new Map<string, { until: number; id: symbol }>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async claim(subject: string): Promise<CooldownClaim | null> {
    const now = this.now();
    const open = this.windows.get(subject);
    if (open && open.until > now) return null;
    const id = Symbol(subject);
    this.windows.delete(subject);
    this.windows.set(subject, { until: now + this.windowMs, id });
    if (this.windows.size > MAX_SUBJECTS) this.forgetOldest();
    return {
      release: async () => {
        if (this.windows.get(subject)?.id === id) this.windows.delete(subject);
      },
    };
  }

  /** The windows opened first go first: under a flood of addresses, forgetting beats growing. */
  private forgetOldest(): void {
    for (const subject of this.windows.keys()) {
      if (this.windows.size <= MAX_SUBJECTS * 0.9) break;
      this.windows.delete(subject);
    }
  }
}

/** Deletes the key only while it still holds this claim's id: a later window is never ended by it. */
const RELEASE_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;

export interface UpstashCooldownOptions {
  /** Keys the subject's hash: `IP_HASH_SALT` when it is set, the same on every instance. */
  subjectSecret?: string;
  warn?: (message: string) => void;
  now?: () => number;
}

/**
 * A cooldown every instance shares through Redis: the window is a key set only if absent, expiring
 * with the window (`SET key id NX PX window`), named by a keyed hash of the subject, never the
 * subject itself. It fails closed, unlike the rate limits: when Redis fails or is slow (the
 * client's own bound, 0.8 s) no claim is granted, `claim` rejects with `CooldownUnavailableError`,
 * and a throttled warning counts what was held back. What it guards is an email to an address the
 * visitor names: granted unchecked, an outage would let anyone flood that mailbox. The request
 * itself goes on (the brief is stored; the caller decides what to answer).
 */
export class UpstashCooldown implements Cooldown {
  readonly driver = "upstash";
  readonly prefix: string;
  private readonly subjectSecret: string;
  private readonly outage: OutageLog;

  constructor(
    private readonly redis: RedisClient,
    policy: string,
    private readonly windowMs: number,
    options: UpstashCooldownOptions = {},
  ) {
    this.prefix = `intake:cooldown:${policy}`;
    this.subjectSecret = options.subjectSecret ?? DEFAULT_SUBJECT_KEY;
    this.outage = new OutageLog(
      this.prefix,
      options.warn ?? ((message) => console.warn(message)),
      options.now ?? Date.now,
      "closed",
    );
  }

  async claim(subject: string): Promise<CooldownClaim | null> {
    const key = `${this.prefix}:${subjectKey(subject, this.subjectSecret, "cooldown")}`;
    const id = randomBytes(12).toString("hex");
    let answer: unknown;
    try {
      answer = await (await this.redis()).set(key, id, { nx: true, px: this.windowMs });
    } catch (error) {
      const problem = describeRedisProblem(error);
      this.outage.failed(problem);
      throw new CooldownUnavailableError(`the window could not be checked: ${problem}`, { cause: error });
    }
    this.outage.answered();
    if (answer !== "OK") return null;
    return {
      release: async () => {
        try {
          await (await this.redis()).eval(RELEASE_SCRIPT, [key], [id]);
        } catch (error) {
          // The window then runs its course: the next attempt waits, nothing worse.
          console.warn(
            `[ratelimit] could not end a window under ${this.prefix}: ${describeRedisFailure(error)}`,
          );
        }
      },
    };
  }
}
