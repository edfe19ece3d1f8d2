import { createServer, request as httpRequest, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { afterResponse, finishInBackground } from "@/lib/background";
import { readText } from "@/lib/http/body";
import { ApiError, errorResponse, json } from "@/lib/http/errors";
import type { IncomingRequest } from "@/lib/http/incoming";
import { afterNodeResponse, keepAliveForNodeResponse, nodePost } from "@/lib/http/node-post";
import { spentBuffers } from "@/lib/spent-buffers";

/** nodePost on a real `node:http` server: what a Pages API route is handed is Node's own pair. */

let server: Server | null = null;
/** The response of the request being handled, to see from a task whether the answer has gone. */
let current: ServerResponse | null = null;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

async function serve(post: (request: IncomingRequest) => Promise<Response>): Promise<string> {
  const handler = nodePost(post);
  server = createServer((req, res) => {
    current = res;
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A request with repeated headers and a body sent in pieces, as raw as `node:http` allows. */
function send(
  url: string,
  options: { method?: string; headers?: [string, string][]; pieces?: string[]; end?: boolean },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    // A Host given here is the only one sent (Node's own would come first, and win).
    const setHost = !(options.headers ?? []).some(([name]) => name.toLowerCase() === "host");
    const req = httpRequest(`${url}/api/route?x=1`, {
      method: options.method ?? "POST",
      agent: false,
      setHost,
    });
    for (const [name, value] of options.headers ?? []) req.appendHeader(name, value);
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    for (const piece of options.pieces ?? []) req.write(piece);
    if (options.end !== false) req.end();
  });
}

describe("nodePost", () => {
  it("gives the route the headers as Next's would read (repeats joined), the URL and the body", async () => {
    let seen: Record<string, unknown> = {};
    const url = await serve(async (request) => {
      seen = {
        forwardedFor: request.headers.get("X-Forwarded-For"),
        accept: request.headers.get("accept"),
        // The one header Node keeps as a list; a web Request's Headers joins it like any other.
        setCookie: request.headers.get("set-cookie"),
        missing: request.headers.get("x-missing"),
        url: request.url,
        body: await readText(request, 1024),
      };
      return json({ ok: true }, { headers: { "RateLimit-Limit": "5" } });
    });
    const answer = await send(url, {
      headers: [
        ["x-forwarded-for", "203.0.113.1"],
        ["x-forwarded-for", "198.51.100.2"],
        ["accept", "application/json"],
        ["set-cookie", "a=1"],
        ["set-cookie", "b=2"],
        ["transfer-encoding", "chunked"],
      ],
      pieces: ['{"email":', '"a@example.com"}'],
    });
    expect(seen).toEqual({
      forwardedFor: "203.0.113.1, 198.51.100.2",
      accept: "application/json",
      setCookie: "a=1, b=2",
      missing: null,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/route\?x=1$/),
      body: '{"email":"a@example.com"}',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('{"ok":true}');
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(answer.headers["ratelimit-limit"]).toBe("5");
  });

  it.each(["a b", "127.0.0.1:1\\x", "[::1"])(
    "gives a URL whose path is the request's even when Host is %j, which names no origin",
    async (host) => {
      let path: string | null = null;
      const url = await serve(async (request) => {
        path = new URL(request.url).pathname;
        return json({ ok: true });
      });
      const answer = await send(url, { headers: [["host", host]] });
      expect(answer.status).toBe(200);
      expect(path).toBe("/api/route");
    },
  );

  it("answers a body over its cap with the route's 413 while the client is still sending", async () => {
    const url = await serve(async (request) => {
      try {
        await readText(request, 16);
        return json({ ok: true });
      } catch (error) {
        return errorResponse(error);
      }
    });
    const answer = await send(url, {
      headers: [["transfer-encoding", "chunked"]],
      pieces: ["a".repeat(64 * 1024)],
      end: false, // the body never ends: the answer must not wait for it
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: "payload_too_large" });
  });

  it("hands the route every chunk in order, holding at most one while the route is slow", async () => {
    const pieces = Array.from(
      { length: 40 },
      (_, index) => `${String(index).padStart(2, "0")}${"x".repeat(16 * 1024)}`,
    );
    let received = "";
    let reads = 0;
    const url = await serve(async (request) => {
      const reader = request.body?.getReader();
      for (;;) {
        const next = await reader?.read();
        if (!next || next.done) break;
        reads += 1;
        received += Buffer.from(next.value).toString("latin1");
        await new Promise((resolve) => setTimeout(resolve, 2)); // a slow consumer
      }
      return json({ ok: true });
    });
    const answer = await send(url, { headers: [["transfer-encoding", "chunked"]], pieces });
    expect(answer.status).toBe(200);
    expect(received).toBe(pieces.join(""));
    expect(reads).toBeGreaterThan(1);
  });

  it("counts every byte of a body read for spentBuffers, and tells it when the body ended", async () => {
    const chunkRead = vi.spyOn(spentBuffers, "chunkRead");
    const bodyEnded = vi.spyOn(spentBuffers, "bodyEnded");
    try {
      const url = await serve(async (request) => json({ length: (await readText(request, 1 << 20)).length }));
      const pieces = Array.from({ length: 8 }, () => "x".repeat(20_000));
      const answer = await send(url, { headers: [["transfer-encoding", "chunked"]], pieces });
      expect(JSON.parse(answer.body)).toEqual({ length: 160_000 });
      expect(chunkRead.mock.calls.reduce((total, [bytes]) => total + bytes, 0)).toBe(160_000);
      expect(bodyEnded).toHaveBeenCalledOnce();
      expect(bodyEnded.mock.invocationCallOrder[0]).toBeGreaterThan(
        Math.max(...chunkRead.mock.invocationCallOrder),
      );
    } finally {
      chunkRead.mockRestore();
      bodyEnded.mockRestore();
    }
  });

  it("fails the read when the client goes away before its body ended", async () => {
    let failure: unknown = null;
    let settle: () => void = () => {};
    const settled = new Promise<void>((resolve) => (settle = resolve));
    let started: () => void = () => {};
    const reading = new Promise<void>((resolve) => (started = resolve));
    const url = await serve(async (request) => {
      try {
        const reader = request.body?.getReader();
        await reader?.read(); // the first piece
        started();
        for (;;) if ((await reader?.read())?.done) break;
      } catch (error) {
        failure = error;
      } finally {
        settle();
      }
      return json({ ok: true });
    });
    const client = httpRequest(`${url}/api/route`, { method: "POST", agent: false });
    client.on("error", () => {});
    client.setHeader("transfer-encoding", "chunked");
    client.write("a".repeat(1024));
    await reading;
    client.destroy();
    await settled;
    expect(failure).toBeInstanceOf(Error);
  });

  it("answers other methods as Next does for a route handler exporting only POST", async () => {
    let called = 0;
    const url = await serve(async () => {
      called += 1;
      return json({ ok: true });
    });
    const options = await send(url, { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe("OPTIONS, POST");
    for (const method of ["GET", "HEAD", "PUT", "DELETE"]) {
      const answer = await send(url, { method, pieces: method === "PUT" ? ["x"] : [] });
      expect(answer.status).toBe(405);
      expect(answer.body).toBe("");
    }
    expect(called).toBe(0);
  });

  it("runs afterResponse's task only once the answer has gone, and keeps finishInBackground's", async () => {
    const events: string[] = [];
    let release: () => void = () => {};
    const backgroundDone = new Promise<void>((resolve) => (release = resolve));
    let afterDone: () => void = () => {};
    const ranAfter = new Promise<void>((resolve) => (afterDone = resolve));
    const url = await serve(async () => {
      afterResponse(async () => {
        events.push(current?.writableFinished ? "after the answer" : "before the answer was sent");
        afterDone();
      }, "test");
      finishInBackground(
        backgroundDone.then(() => events.push("background settled")),
        "test",
      );
      events.push("answering");
      return json({ ok: true });
    });
    const answer = await send(url, {});
    events.push("answer received");
    expect(answer.status).toBe(200);
    await ranAfter;
    release();
    await backgroundDone;
    await new Promise((resolve) => setImmediate(resolve));
    expect(events[0]).toBe("answering");
    expect(events).toContain("after the answer");
    expect(events.at(-1)).toBe("background settled");
  });

  it("outside a nodePost request, leaves the waiting to Next's after() (returns false)", () => {
    expect(keepAliveForNodeResponse(Promise.resolve())).toBe(false);
    expect(afterNodeResponse(async () => {})).toBe(false);
  });

  it("answers what the route throws as the route answers it (the route maps its errors)", async () => {
    const url = await serve(async () => errorResponse(new ApiError("unsupported_media_type")));
    const answer = await send(url, {});
    expect(answer.status).toBe(415);
    expect(answer.headers["cache-control"]).toBe("no-store");
  });
});
