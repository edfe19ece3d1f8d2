import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import { waitUntil } from "@vercel/functions";
import type { BodyReader, IncomingRequest, RequestHeaders } from "./incoming";
import { spentBuffers } from "../spent-buffers";

/**
 * A public route's `POST` served as a Pages API route (`pages/api/*.ts`, with Next's body parser
 * off). Next hands such a route Node's own request and response; an App Router route handler gets
 * a web `Request` with its body stream, request stores and an `after()` context built for every
 * request, which costs about as much CPU again as the route's own work on the embedded defaults
 * (docs/performance.md, "The form posts as Pages API routes"). The route itself is the same
 * `publicRoute`: this only reads the request and writes the answer.
 *
 * Methods other than POST are answered as an App Router route exporting only `POST` would answer
 * them: `OPTIONS` 204 with `Allow`, anything else a bare 405 (the contract leaves 405 to Next).
 */
export function nodePost(
  post: (request: IncomingRequest) => Promise<Response>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async function handler(req, res) {
    if (req.method !== "POST") return answerOtherMethod(req, res);
    const scope: ResponseScope = { res, closed: null };
    const response = await requestScope.run(scope, () => post(nodeRequest(req)));
    await send(res, response);
  };
}

/** The request being handled, for work put off until its answer has gone. */
interface ResponseScope {
  res: ServerResponse;
  /** Settles when the response is closed (sent, or the client gone); made when first asked for. */
  closed: Promise<void> | null;
}

const requestScope = new AsyncLocalStorage<ResponseScope>();

/**
 * Inside a `nodePost` route: keeps the function alive for `settled` (Vercel's `waitUntil`; a Node
 * server simply runs it on) and returns `true`. Outside one, `false`: Next's `after()` is the way.
 */
export function keepAliveForNodeResponse(settled: Promise<unknown>): boolean {
  if (requestScope.getStore() === undefined) return false;
  waitUntil(settled);
  return true;
}

/**
 * Inside a `nodePost` route: runs `task` (which must not reject: `afterResponse`'s never does) once
 * the response is closed, and returns `true`; outside one, `false`. The function is kept alive for
 * it from now, while the request is still being handled, not from the close, when a platform may
 * already be freezing it.
 */
export function afterNodeResponse(task: () => Promise<unknown>): boolean {
  const scope = requestScope.getStore();
  if (scope === undefined) return false;
  scope.closed ??= new Promise<void>((resolve) => {
    if (scope.res.closed) resolve();
    else scope.res.once("close", () => resolve());
  });
  waitUntil(scope.closed.then(task));
  return true;
}

/** The request as the public routes read it: Node's parsed headers, its URL, its body's chunks. */
function nodeRequest(req: IncomingMessage): IncomingRequest {
  const headers: RequestHeaders = {
    get(name) {
      const value = req.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
  return {
    headers,
    // Worked out only when read (a broken-off body's log line), like a web Request's, always a URL.
    get url() {
      return requestUrl(req);
    },
    body: { getReader: () => bodyReader(req) },
  };
}

/**
 * The request's path resolved against the origin its `Host` names, or `localhost` when that names
 * none: a client chooses its `Host`, and pasting it in front of the path could make no URL at all
 * (`Host: a b`) or move part of it into the path (`Host: a\b`).
 */
function requestUrl(req: IncomingMessage): string {
  const named = `http://${req.headers.host ?? "localhost"}`;
  const base = URL.canParse(named) ? named : "http://localhost";
  const target = req.url ?? "/";
  return URL.canParse(target, base) ? new URL(target, base).href : new URL(base).href;
}

/**
 * Reads the body as it arrives, one chunk at a time: the request is paused while a chunk waits
 * for its read, so no more than that is held. Stopping early (a body over its cap) leaves the
 * socket open, so the answer reaches a client still sending (closing on it can lose the 413 for
 * the client); what the client still sends is read and discarded, never kept, as Node does with
 * any unread body. Built on the request's events rather than its async iterator, which Node
 * builds afresh for every body (docs/performance.md, "Fifth session"). Each chunk is counted for
 * `spentBuffers`, which frees spent chunks sooner than V8 would (lib/spent-buffers.ts).
 */
function bodyReader(req: IncomingMessage): BodyReader {
  const queued: Buffer[] = [];
  let ended = false;
  let failure: Error | null = null;
  let waiting: {
    resolve: (result: ReadableStreamReadResult<Uint8Array>) => void;
    reject: (error: Error) => void;
  } | null = null;

  const settle = () => {
    const reader = waiting;
    if (reader === null) return;
    if (queued.length > 0) {
      waiting = null;
      reader.resolve({ done: false, value: queued.shift() as Buffer });
    } else if (failure !== null) {
      waiting = null;
      reader.reject(failure);
    } else if (ended) {
      waiting = null;
      reader.resolve({ done: true, value: undefined });
    }
  };
  const onData = (chunk: Buffer) => {
    spentBuffers.chunkRead(chunk.byteLength);
    queued.push(chunk);
    if (waiting === null) req.pause();
    settle();
  };
  const onEnd = () => {
    ended = true;
    detach();
    settle();
  };
  const onError = (error: Error) => {
    failure ??= error;
    detach();
    settle();
  };
  // A connection that closes before the body ended, with or without an error event.
  const onClose = () => {
    if (!ended) onError(new Error("The connection closed before the body ended."));
  };
  const detach = () => {
    req.off("data", onData);
    req.off("end", onEnd);
    req.off("error", onError);
    req.off("close", onClose);
    spentBuffers.bodyEnded();
  };
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", onError);
  req.on("close", onClose);

  return {
    read() {
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        settle();
        if (waiting !== null && !ended && failure === null) req.resume();
      });
    },
    async cancel() {
      queued.length = 0;
      if (ended || failure !== null) return;
      detach();
      ended = true;
      req.resume();
    },
  };
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const body = response.body === null ? null : Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const [name, value] of response.headers) {
    // Replacing what next.config.ts set for the path, as Next does with a route handler's headers.
    if (name === "set-cookie") res.appendHeader(name, value);
    else res.setHeader(name, value);
  }
  res.end(body);
}

function answerOtherMethod(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  if (req.method === "OPTIONS") {
    res.statusCode = 204;
    res.setHeader("Allow", "OPTIONS, POST");
  } else {
    res.statusCode = 405;
  }
  res.end();
}
