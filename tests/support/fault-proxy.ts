import { createServer, type IncomingHttpHeaders, request as httpRequest } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * An HTTP proxy on loopback in front of the Blob stand-in (or any local server) that misbehaves
 * on purpose, the way a real network and a real store do: it holds a request and forwards it
 * late (the store then writes it, whether or not the client still waits), forwards a request and
 * drops the answer (a write that landed, but whose answer was lost), refuses it with an error, or
 * holds it forever.
 * Everything else is forwarded as it is, Host header included.
 */

export interface ProxiedRequest {
  method: string;
  /** The blob path the request names: `?pathname=` of an API call, or the path of a download. */
  pathname: string | null;
  url: URL;
  host: string;
  body: Buffer;
}

export interface ProxyRule {
  match: (request: ProxiedRequest) => boolean;
  /** Hold the request this long, then forward it, even when the client has gone meanwhile. */
  delayMs?: number;
  /** Forward the request, then close the client's connection instead of answering. */
  dropAnswer?: boolean;
  /** Never forward the request; the client waits until it gives up. */
  hang?: boolean;
  /** Answer this status with the Blob API's error body, without forwarding the request. */
  status?: number;
  /** Only the first this many matching requests; every one when absent. */
  times?: number;
}

export interface FaultProxy {
  origin: string;
  rules: ProxyRule[];
  /** Every request seen, in arrival order, with when it reached the target (`null`: it did not). */
  seen: { request: ProxiedRequest; forwardedAt: number | null }[];
  /** Resolves once no request is held or being forwarded. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const STORAGE_HOST = /\.blob\.vercel-storage\.com$/i;

export async function startFaultProxy(targetOrigin: string): Promise<FaultProxy> {
  const target = new URL(targetOrigin);
  const rules: ProxyRule[] = [];
  const seen: FaultProxy["seen"] = [];
  const sockets = new Set<Socket>();
  const inFlight = new Set<Promise<void>>();

  const server = createServer((req, res) => {
    const work = (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const url = new URL(req.url ?? "/", "http://proxy");
      const host = req.headers.host ?? "";
      const request: ProxiedRequest = {
        method: req.method ?? "GET",
        pathname: STORAGE_HOST.test(host)
          ? decodeURIComponent(url.pathname.slice(1))
          : url.searchParams.get("pathname"),
        url,
        host,
        body: Buffer.concat(chunks),
      };
      const entry = { request, forwardedAt: null as number | null };
      seen.push(entry);
      const rule = rules.find((candidate) => candidate.match(request) && (candidate.times ?? 1) > 0);
      if (rule?.times !== undefined) rule.times -= 1;
      if (rule?.hang) return;
      if (rule?.status !== undefined) {
        res.writeHead(rule.status, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ error: { code: "internal_server_error", message: "Refused by the fault proxy" } }),
        );
        return;
      }
      if (rule?.delayMs) await new Promise((resolve) => setTimeout(resolve, rule.delayMs));

      const answer = await forward(target, req.method ?? "GET", req.url ?? "/", req.headers, request.body);
      entry.forwardedAt = Date.now();
      if (rule?.dropAnswer || res.destroyed) {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    rules,
    seen,
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends the request to the target whatever became of the client, and reads the whole answer. */
function forward(
  target: URL,
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method,
        path,
        headers: { ...headers, connection: "close" },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 502,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on("error", reject);
      },
    );
    upstream.on("error", reject);
    upstream.end(body);
  });
}
