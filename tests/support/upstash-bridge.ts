import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { RespClient, RespError, type RespReply } from "./resp";

/**
 * Upstash's REST protocol in front of a real redis-server, so `@upstash/redis` (and
 * `@upstash/ratelimit` on top of it) run unmodified in tests:
 *
 * - `POST /` with a command as a JSON array -> `{ result }`, or HTTP 400 `{ error }`;
 *   `POST /pipeline` and `POST /multi-exec` with an array of commands -> `[{ result } | { error }]`.
 * - `Authorization: Bearer <token>`; with `Upstash-Encoding: base64`, every string in a result is
 *   base64 of its bytes (a nil stays `null`, numbers stay numbers).
 * - Redis 7.0 rejects the `#!lua flags=allow-key-locking` first line of @upstash/ratelimit's scripts
 *   (an Upstash extension): EVAL and SCRIPT LOAD run the script without it, and EVALSHA with the
 *   original script's SHA1 (what the library sends) runs the stripped one.
 *
 * When Redis cannot be reached it answers HTTP 500 `{ error }`; when Redis hangs, so does it.
 * `failWith(message)` makes it answer every request HTTP 400 `{ error: message }` without asking
 * Redis, as Upstash does when a database's request limit is used up; `@upstash/redis` then
 * throws `<message>, command was: <the request body>`.
 */
export interface UpstashBridge {
  url: string;
  token: string;
  /** Commands received, upper-cased names only, for tests that check what went to Redis. */
  commands: string[];
  /** Answer every request with this error (HTTP 400) from now on; `null` to answer normally again. */
  failWith(message: string | null): void;
  close(): Promise<void>;
}

export async function startUpstashBridge(redisPort: number): Promise<UpstashBridge> {
  const token = randomBytes(16).toString("hex");
  const commands: string[] = [];
  /** SHA1 of an original script -> SHA1 of the one Redis actually has. */
  const shaOfStripped = new Map<string, string>();
  let connection: Promise<RespClient> | null = null;
  let failure: string | null = null;

  /** One connection, opened again after Redis dropped it; MULTI and EXEC must share it. */
  const redis = async (args: string[]): Promise<RespReply> => {
    if (!connection) {
      connection = RespClient.connect(redisPort);
      connection.catch(() => (connection = null));
    }
    const client = await connection;
    if (client.closed) {
      connection = null;
      return redis(args);
    }
    return client.command(args);
  };

  /** One command, rewritten where Redis 7.0 needs it. */
  const run = async (command: unknown[]): Promise<RespReply> => {
    const args = command.map(toArgument);
    const name = (args[0] ?? "").toUpperCase();
    commands.push(name);
    if ((name === "EVAL" || name === "EVAL_RO") && args[1] !== undefined) {
      args[1] = strip(args[1]);
    } else if ((name === "EVALSHA" || name === "EVALSHA_RO") && args[1] !== undefined) {
      args[1] = shaOfStripped.get(args[1].toLowerCase()) ?? args[1];
    } else if (name === "SCRIPT" && args[1]?.toUpperCase() === "LOAD" && args[2] !== undefined) {
      const original = args[2];
      const reply = await redis(["SCRIPT", "LOAD", strip(original)]);
      return reply instanceof RespError ? reply : Buffer.from(sha1(original));
    } else if (name === "SCRIPT" && args[1]?.toUpperCase() === "EXISTS") {
      for (let i = 2; i < args.length; i++) {
        const sha = args[i] ?? "";
        args[i] = shaOfStripped.get(sha.toLowerCase()) ?? sha;
      }
    }
    return redis(args);
  };

  function strip(script: string): string {
    const newline = script.indexOf("\n");
    const stripped = script.startsWith("#!lua") && newline !== -1 ? script.slice(newline + 1) : script;
    shaOfStripped.set(sha1(script), sha1(stripped));
    return stripped;
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      send(res, 500, { error: `bridge: ${error instanceof Error ? error.message : String(error)}` });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== "POST") return send(res, 405, { error: "Method not allowed" });
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: "Unauthorized" });
    if (failure !== null) return send(res, 400, { error: failure });
    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    const encode = (reply: RespReply) => toJson(reply, base64);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    const path = new URL(req.url ?? "/", "http://bridge").pathname.replace(/\/+$/, "");

    if (path === "") {
      if (!Array.isArray(body)) return send(res, 400, { error: "ERR the body must be a command array" });
      const reply = await run(body);
      if (reply instanceof RespError) return send(res, 400, { error: reply.message });
      return send(res, 200, { result: encode(reply) });
    }
    if (path === "/pipeline" || path === "/multi-exec") {
      if (!Array.isArray(body) || !body.every(Array.isArray)) {
        return send(res, 400, { error: "ERR the body must be an array of commands" });
      }
      const batch = body as unknown[][];
      // One after another, in order: the batch's meaning depends on it.
      const runAll = async () => {
        const replies: RespReply[] = [];
        for (const command of batch) replies.push(await run(command));
        return replies;
      };
      if (path === "/pipeline") {
        const replies = await runAll();
        return send(
          res,
          200,
          replies.map((reply) => itemJson(reply, encode)),
        );
      }
      const queued = await run(["MULTI"]);
      if (queued instanceof RespError) return send(res, 400, { error: queued.message });
      const answers = await runAll();
      const refused = answers.find((reply) => reply instanceof RespError);
      if (refused instanceof RespError) {
        await run(["DISCARD"]);
        return send(res, 400, { error: refused.message });
      }
      const executed = await run(["EXEC"]);
      if (!Array.isArray(executed)) {
        return send(res, 400, { error: executed instanceof RespError ? executed.message : "EXEC failed" });
      }
      return send(
        res,
        200,
        executed.map((reply) => itemJson(reply, encode)),
      );
    }
    return send(res, 404, { error: `bridge: no route ${path}` });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    commands,
    failWith: (message) => (failure = message),
    close: () =>
      new Promise<void>((resolve) => {
        void connection?.then((client) => client.close()).catch(() => {});
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(payload));
}

function itemJson(reply: RespReply, encode: (reply: RespReply) => unknown) {
  return reply instanceof RespError ? { error: reply.message } : { result: encode(reply) };
}

function toJson(reply: RespReply, base64: boolean): unknown {
  if (reply === null || typeof reply === "number") return reply;
  if (reply instanceof RespError) return null;
  if (Array.isArray(reply)) return reply.map((item) => toJson(item, base64));
  return base64 ? reply.toString("base64") : reply.toString("utf8");
}

function toArgument(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}
