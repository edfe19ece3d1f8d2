import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * A stand-in for Cloudflare's siteverify (`TURNSTILE_VERIFY_URL`): a real HTTP server on 127.0.0.1
 * that answers as siteverify does, decided by the token it is asked about, so tests running side by
 * side never change each other's answers. A token reads `<behaviour>.<action>.<anything>`:
 *
 * - `pass`: success, for the stand-in's hostname and the token's action;
 * - `fail`: `success: false` (`invalid-input-response`), as for a forged or expired token;
 * - `wrong-hostname`: success, but issued on another site;
 * - `wrong-action`: success, but for another form's action;
 * - `error-500`: HTTP 500 every time; `500-once`: HTTP 500, then what `pass` answers;
 * - `hang`: never answers; `hang-once`: the first request never answers, then `pass`;
 * - `stall`: HTTP 200 and the start of an answer, whose rest never comes;
 * - `reset`: the connection reset (TCP RST) without an answer;
 * - `http-400`: HTTP 400, as for a request siteverify cannot read;
 * - `not-json`: HTTP 200 with an HTML page, as a proxy's error page might be;
 * - `redirect`: HTTP 302 to a passing answer, which must not be followed.
 *
 * Anything else is `invalid-input-response`. As siteverify does, it refuses a wrong secret and a
 * token checked before (`timeout-or-duplicate`), unless the request carries the same
 * `idempotency_key` as that earlier check. Every request is recorded.
 */

export const SITEVERIFY_BEHAVIOURS = [
  "pass",
  "fail",
  "wrong-hostname",
  "wrong-action",
  "error-500",
  "500-once",
  "hang",
  "hang-once",
  "stall",
  "reset",
  "http-400",
  "not-json",
  "redirect",
] as const;

export type SiteverifyBehaviour = (typeof SITEVERIFY_BEHAVIOURS)[number];

/** One request as siteverify got it. */
export interface SiteverifyRequest {
  at: number;
  method: string;
  contentType: string;
  secret: string | null;
  response: string | null;
  remoteip: string | null;
  idempotencyKey: string | null;
  /** Every form field, for checking nothing else is sent. */
  fields: string[];
}

export interface SiteverifyStandIn {
  /** For TURNSTILE_VERIFY_URL. */
  url: string;
  requests: SiteverifyRequest[];
  /** The requests that asked about this token. */
  requestsFor(token: string): SiteverifyRequest[];
  stop(): Promise<void>;
}

let counter = 0;

/** A fresh token that makes the stand-in answer as `behaviour` for `action`. */
export function standInToken(behaviour: SiteverifyBehaviour, action: string): string {
  counter += 1;
  return `${behaviour}.${action}.${process.pid}-${counter}-${Math.random().toString(36).slice(2)}`;
}

export async function startSiteverifyStandIn(
  options: { secret: string; hostname?: string; port?: number } = { secret: "test-secret" },
): Promise<SiteverifyStandIn> {
  const hostname = options.hostname ?? "127.0.0.1";
  const requests: SiteverifyRequest[] = [];
  /** Tokens already checked, with the idempotency key of the check that spent them. */
  const spent = new Map<string, string | null>();
  /** Tokens whose first request got their `-once` misbehaviour. */
  const misbehaved = new Set<string>();

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const request: SiteverifyRequest = {
        at: Date.now(),
        method: req.method ?? "",
        contentType: req.headers["content-type"] ?? "",
        secret: form.get("secret"),
        response: form.get("response"),
        remoteip: form.get("remoteip"),
        idempotencyKey: form.get("idempotency_key"),
        fields: [...form.keys()],
      };
      requests.push(request);

      if (request.method !== "POST")
        return send(res, 405, { success: false, "error-codes": ["bad-request"] });
      if (request.secret !== options.secret) {
        return send(res, 200, { success: false, "error-codes": ["invalid-input-secret"] });
      }
      const token = request.response ?? "";
      const [behaviour, action = ""] = token.split(".");
      const once = behaviour === "500-once" || behaviour === "hang-once";
      if (once && !misbehaved.has(token)) {
        misbehaved.add(token);
        if (behaviour === "500-once") return send(res, 500, { error: "internal" });
        return; // hang-once: never answered
      }
      if (behaviour === "hang") return;
      if (behaviour === "stall") {
        res.writeHead(200, { "content-type": "application/json", "content-length": "200" });
        return res.write('{"success": tr');
      }
      if (behaviour === "reset") return req.socket.resetAndDestroy();
      if (behaviour === "error-500") return send(res, 500, { error: "internal" });
      if (behaviour === "http-400") return send(res, 400, { success: false, "error-codes": ["bad-request"] });
      if (behaviour === "not-json") {
        res.writeHead(200, { "content-type": "text/html" });
        return res.end("<html><body>Bad gateway</body></html>");
      }
      if (behaviour === "redirect") {
        res.writeHead(302, { location: `/?token=pass.${action}` });
        return res.end();
      }

      const passing = ["pass", "500-once", "hang-once", "wrong-hostname", "wrong-action"];
      if (!passing.includes(behaviour ?? "")) {
        return send(res, 200, { success: false, "error-codes": ["invalid-input-response"] });
      }
      if (spent.has(token) && spent.get(token) !== request.idempotencyKey) {
        return send(res, 200, { success: false, "error-codes": ["timeout-or-duplicate"] });
      }
      spent.set(token, request.idempotencyKey);
      send(res, 200, {
        success: true,
        challenge_ts: new Date().toISOString(),
        hostname: behaviour === "wrong-hostname" ? "elsewhere.example" : hostname,
        "error-codes": [],
        action: behaviour === "wrong-action" ? "some-other-form" : action,
        cdata: "",
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}/turnstile/v0/siteverify`,
    requests,
    requestsFor: (token) => requests.filter((request) => request.response === token),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
