import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * A stand-in for Upstash QStash on 127.0.0.1, which the real `@upstash/qstash` client talks to
 * through `QSTASH_URL`: it takes `POST /v2/publish/<destination URL>` as QStash does (bearer token,
 * `Upstash-Delay` or `Upstash-Not-Before`, `Upstash-Deduplication-Id`, forwarded headers; answers
 * `{ messageId }`), and after the delay calls the destination with the same body, signed as QStash
 * signs (a JWT, HS256, in `Upstash-Signature`), trying again a few times on anything but a 2xx.
 */

/** Which key a delivery is signed with: QStash's current, its next (after a key roll), or a forger's. */
export type SigningKey = "current" | "next" | "forged";

/** One publish the stand-in accepted. */
export interface PublishedMessage {
  messageId: string;
  destination: string;
  method: string;
  body: string;
  /** `Upstash-Delay` in seconds (0 when absent). */
  delaySeconds: number;
  deduplicationId: string | null;
  /** Every header of the publish request, lowercased names. */
  headers: Record<string, string>;
  /** `Date.now()` when it was accepted. */
  at: number;
}

/** One call the stand-in made to a destination, and how it was answered. */
export interface DeliveryAttempt {
  messageId: string;
  /** 0 for the first call, then QStash's `Upstash-Retried`. */
  retried: number;
  status: number;
  /** The destination's answer body. */
  answer: string;
  at: number;
}

export interface QStashStandInOptions {
  /** Multiplies every delay (`0.001`: a second is a millisecond). Default 1: real time. */
  delayScale?: number;
  /** Calls after the first on a non-2xx answer or a network error. Default 3, QStash's own. */
  retries?: number;
  /** The wait before each of those calls. Default 300 ms. */
  retryDelayMs?: number;
}

export interface QStashStandIn {
  /** For `QSTASH_URL`. */
  url: string;
  token: string;
  currentSigningKey: string;
  nextSigningKey: string;
  /** `QSTASH_URL`, `QSTASH_TOKEN` and both signing keys, for the app's environment. */
  env: Record<string, string>;
  published: PublishedMessage[];
  deliveries: DeliveryAttempt[];
  /** The publishes whose JSON body has this `reference`. */
  publishedFor(reference: string): PublishedMessage[];
  /** Which key the deliveries from now on are signed with (initially `current`). */
  signWith(key: SigningKey): void;
  /** `true`: publishes are recorded and never delivered by themselves (`deliver` them). */
  hold(held: boolean): void;
  /** Calls `destination` once now as QStash would, signed with `key`, and returns its answer. */
  deliver(
    destination: string,
    body: string,
    options?: { key?: SigningKey; headers?: Record<string, string> },
  ): Promise<{ status: number; answer: string }>;
  /** Resolves once no delivery is waiting or under way. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** QStash's `Upstash-Delay` (`10s`, `5m`, `2h`, `1d`) in seconds; `null` when it is not one. */
export function parseDelay(value: string | undefined): number | null {
  if (value === undefined) return 0;
  const match = /^(\d+)([smhd])$/.exec(value.trim());
  return match ? Number(match[1]) * UNIT_SECONDS[match[2]!]! : null;
}

const base64url = (bytes: Buffer | string) => Buffer.from(bytes).toString("base64url");

/**
 * `Upstash-Signature` as QStash makes it: a JWT, HS256 with the signing key's UTF-8 bytes, whose
 * claims name the issuer, the destination URL (`sub`), a five-minute validity and the body's
 * SHA-256 (base64url, padded).
 */
export function signQStashJwt(key: string, destination: string, body: string, now = Date.now()): string {
  const seconds = Math.floor(now / 1000);
  const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const claims = base64url(
    JSON.stringify({
      iss: "Upstash",
      sub: destination,
      exp: seconds + 300,
      nbf: seconds,
      iat: seconds,
      jti: `jwt_${randomBytes(12).toString("hex")}`,
      // QStash pads this one (`…vY4=`), unlike the JWT's own parts; the SDK takes either.
      body: createHash("sha256")
        .update(body, "utf8")
        .digest("base64")
        .replace(/\+/g, "-")
        .replace(/\//g, "_"),
    }),
  );
  const signature = base64url(createHmac("sha256", key).update(`${header}.${claims}`).digest());
  return `${header}.${claims}.${signature}`;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function answerJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "Content-Type": "application/json" });
  response.end(JSON.stringify(body));
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export async function startQStashStandIn(options: QStashStandInOptions = {}): Promise<QStashStandIn> {
  const { delayScale = 1, retries = 3, retryDelayMs = 300 } = options;
  const token = `qstash_${randomBytes(16).toString("hex")}`;
  const currentSigningKey = `sig_${randomBytes(16).toString("base64url")}`;
  const nextSigningKey = `sig_${randomBytes(16).toString("base64url")}`;
  const forgedSigningKey = `sig_${randomBytes(16).toString("base64url")}`;
  const keys: Record<SigningKey, string> = {
    current: currentSigningKey,
    next: nextSigningKey,
    forged: forgedSigningKey,
  };
  const published: PublishedMessage[] = [];
  const deliveries: DeliveryAttempt[] = [];
  const byDeduplicationId = new Map<string, string>();
  const timers = new Set<NodeJS.Timeout>();
  const underWay = new Set<Promise<void>>();
  let signingKey: SigningKey = "current";
  let held = false;
  let stopped = false;

  const later = (ms: number, work: () => Promise<void>) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (stopped) return;
      const running = work().finally(() => underWay.delete(running));
      underWay.add(running);
    }, ms);
    timers.add(timer);
  };

  async function call(
    destination: string,
    method: string,
    body: string,
    key: SigningKey,
    headers: Record<string, string>,
  ): Promise<{ status: number; answer: string }> {
    try {
      const response = await fetch(destination, {
        method,
        headers: {
          ...headers,
          "User-Agent": "Upstash-QStash",
          "Upstash-Signature": signQStashJwt(keys[key], destination, body),
        },
        body: method === "GET" || method === "HEAD" ? undefined : body,
        signal: AbortSignal.timeout(30_000),
      });
      return { status: response.status, answer: await response.text() };
    } catch (error) {
      return { status: 0, answer: String(error) };
    }
  }

  /** What QStash sends besides the body: the publish's content type and its forwarded headers. */
  function destinationHeaders(message: PublishedMessage, retried: number): Record<string, string> {
    const headers: Record<string, string> = {
      "Upstash-Message-Id": message.messageId,
      "Upstash-Retried": String(retried),
    };
    const contentType = message.headers["content-type"];
    if (contentType) headers["Content-Type"] = contentType;
    for (const [name, value] of Object.entries(message.headers)) {
      if (name.startsWith("upstash-forward-")) headers[name.slice("upstash-forward-".length)] = value;
    }
    return headers;
  }

  function schedule(message: PublishedMessage, retried: number, ms: number): void {
    later(ms, async () => {
      const { status, answer } = await call(
        message.destination,
        message.method,
        message.body,
        signingKey,
        destinationHeaders(message, retried),
      );
      deliveries.push({ messageId: message.messageId, retried, status, answer, at: Date.now() });
      if ((status < 200 || status >= 300) && retried < retries) schedule(message, retried + 1, retryDelayMs);
    });
  }

  async function publish(request: IncomingMessage, response: ServerResponse, destination: string) {
    const authorization = request.headers.authorization ?? "";
    if (!sameSecret(authorization, `Bearer ${token}`)) {
      return answerJson(response, 401, { error: "Unauthorized" });
    }
    if (!URL.canParse(destination) || !/^https?:$/.test(new URL(destination).protocol)) {
      return answerJson(response, 400, { error: `invalid destination url: ${destination}` });
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).flatMap(([name, value]) =>
        typeof value === "string" ? [[name, value]] : [],
      ),
    );
    const delaySeconds = parseDelay(headers["upstash-delay"]);
    if (delaySeconds === null) {
      return answerJson(response, 400, { error: `invalid Upstash-Delay: ${headers["upstash-delay"]}` });
    }
    const body = await readBody(request);
    const deduplicationId = headers["upstash-deduplication-id"] ?? null;
    const earlier = deduplicationId === null ? undefined : byDeduplicationId.get(deduplicationId);
    if (earlier !== undefined) return answerJson(response, 201, { messageId: earlier, deduplicated: true });
    const message: PublishedMessage = {
      messageId: `msg_${randomBytes(12).toString("hex")}`,
      // As published: the signature's `sub` must be the very URL the receiver checks against.
      destination,
      method: headers["upstash-method"] ?? "POST",
      body,
      delaySeconds,
      deduplicationId,
      headers,
      at: Date.now(),
    };
    published.push(message);
    if (deduplicationId !== null) byDeduplicationId.set(deduplicationId, message.messageId);
    // `Upstash-Not-Before` (unix seconds) instead of a delay: the wait until then, scaled alike.
    const notBefore = Number(headers["upstash-not-before"] ?? Number.NaN);
    const waitMs = Number.isFinite(notBefore)
      ? Math.max(0, notBefore * 1000 - Date.now())
      : delaySeconds * 1000;
    if (!held) schedule(message, 0, waitMs * delayScale);
    answerJson(response, 201, { messageId: message.messageId });
  }

  const server = createServer((request, response) => {
    const path = request.url ?? "";
    const prefix = "/v2/publish/";
    if (request.method === "POST" && path.startsWith(prefix)) {
      publish(request, response, path.slice(prefix.length)).catch((error: unknown) =>
        answerJson(response, 500, { error: String(error) }),
      );
      return;
    }
    answerJson(response, 404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

  return {
    url,
    token,
    currentSigningKey,
    nextSigningKey,
    env: {
      QSTASH_URL: url,
      QSTASH_TOKEN: token,
      QSTASH_CURRENT_SIGNING_KEY: currentSigningKey,
      QSTASH_NEXT_SIGNING_KEY: nextSigningKey,
    },
    published,
    deliveries,
    publishedFor: (reference) =>
      published.filter((message) => {
        try {
          return (JSON.parse(message.body) as { reference?: unknown }).reference === reference;
        } catch {
          return false;
        }
      }),
    signWith: (key) => (signingKey = key),
    hold: (next) => (held = next),
    deliver: (destination, body, { key = "current", headers = {} } = {}) =>
      call(destination, "POST", body, key, { "Content-Type": "application/json", ...headers }),
    idle: async () => {
      while (timers.size > 0 || underWay.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    stop: async () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...underWay]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
