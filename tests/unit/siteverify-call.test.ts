import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askSiteverify } from "@/lib/verification/siteverify-call";

/** What the server saw of each request, and how it answers: by the request's path. */
interface Seen {
  method: string;
  url: string;
  contentType: string;
  body: string;
  closed: Promise<void>;
}

const seen: Seen[] = [];
let server: Server;
let origin: string;

const ANSWER = { success: true, hostname: "studio.example", action: "contact" };

const answers: Record<string, (res: ServerResponse) => void> = {
  "/ok": (res) => json(res, 200, ANSWER),
  "/bom": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(ANSWER))]));
  },
  "/chunked": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    const text = JSON.stringify(ANSWER);
    res.write(text.slice(0, 5));
    setTimeout(() => res.end(text.slice(5)), 20);
  },
  "/broken": (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "200" });
    res.write('{"success": tr');
    setTimeout(() => res.destroy(), 20);
  },
  "/reset": (res) => res.socket?.resetAndDestroy(),
  "/garbage": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(Buffer.from([0xff, 0x00, 0x7b, 0x22, 0xfe]));
  },
  "/no-flag": (res) => json(res, 200, { hostname: "studio.example" }),
  "/empty": (res) => {
    res.writeHead(200);
    res.end();
  },
  "/503": (res) => json(res, 503, { error: "down" }),
  "/404": (res) => json(res, 404, { error: "no such page" }),
  "/hang": () => {},
  "/stall": (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "200" });
    res.write('{"success": tr');
  },
  "/stall-503": (res) => {
    res.writeHead(503, { "content-type": "application/json", "content-length": "200" });
    res.write('{"error": "do');
  },
};

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    const closed = new Promise<void>((resolve) => req.socket.once("close", () => resolve()));
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        contentType: req.headers["content-type"] ?? "",
        body: Buffer.concat(chunks).toString("utf8"),
        closed,
      });
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      (answers[path] ?? answers["/404"])?.(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const ask = (path: string, timeoutMs = 1_000) =>
  askSiteverify(`${origin}${path}`, "secret=s&response=t", timeoutMs);

describe("askSiteverify", () => {
  it("POSTs the form to the URL's path and query, and reads the answer", async () => {
    expect(await ask("/ok?region=eu")).toEqual({ kind: "answer", answer: ANSWER });
    expect(seen.at(-1)).toMatchObject({
      method: "POST",
      url: "/ok?region=eu",
      contentType: "application/x-www-form-urlencoded",
      body: "secret=s&response=t",
    });
  });

  it("reads an answer that comes in several chunks, or after a byte order mark", async () => {
    expect(await ask("/chunked")).toEqual({ kind: "answer", answer: ANSWER });
    expect(await ask("/bom")).toEqual({ kind: "answer", answer: ANSWER });
  });

  it.each([
    ["/broken", "siteverify's answer is not JSON"],
    ["/garbage", "siteverify's answer is not JSON"],
    ["/empty", "siteverify's answer is not JSON"],
    ["/no-flag", "siteverify's answer has no success flag"],
    ["/503", "siteverify answered HTTP 503"],
  ])("is unavailable for %s", async (path, problem) => {
    expect(await ask(path)).toEqual({ kind: "unavailable", problem });
  });

  it("is refused for a 4xx", async () => {
    expect(await ask("/404")).toEqual({ kind: "refused", problem: "siteverify answered HTTP 404" });
  });

  it("is unavailable at once when the connection is reset before an answer", async () => {
    const started = Date.now();
    expect(await ask("/reset")).toEqual({
      kind: "unavailable",
      problem: expect.stringMatching(/^siteverify could not be reached: /),
    });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it.each([
    ["/hang", "no answer at all"],
    ["/stall", "an answer that stops halfway"],
  ])("gives up on %s (%s) when the time runs out, and closes its connection", async (path) => {
    const started = Date.now();
    expect(await ask(path, 300)).toEqual({
      kind: "unavailable",
      problem: "siteverify did not answer within 300 ms",
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(800);
    await seen.at(-1)?.closed;
  });

  it("keeps to its time when a 5xx's body stops halfway", async () => {
    const started = Date.now();
    expect(await ask("/stall-503", 300)).toEqual({
      kind: "unavailable",
      problem: "siteverify answered HTTP 503",
    });
    expect(Date.now() - started).toBeLessThan(800);
    await seen.at(-1)?.closed;
  });
});
