import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";

/** One request as the receiver got it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent: what a signature is computed over. */
  body: string;
  /** When the sender closed the connection without waiting for an answer (`Date.now()`), if it did. */
  abandonedAt: number | null;
}

/** How the receiver answers: a status (with headers), or never. */
export type Answer = { status: number; headers?: Record<string, string> } | "hang";

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  /** How the following requests are answered (initially 204). */
  answer(answer: Answer): void;
  /** Runs on each request once its body is in, before it is answered. */
  onRequest(hook: ((request: ReceivedRequest) => Promise<void>) | null): void;
  /** The requests whose JSON body carries this brief reference. */
  forReference(reference: string): ReceivedRequest[];
  stop(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every request, standing in for ops' webhook endpoint. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let answer: Answer = { status: 204 };
  let hook: ((request: ReceivedRequest) => Promise<void>) | null = null;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        abandonedAt: null,
      };
      received.push(request);
      res.on("close", () => {
        if (!res.writableFinished) request.abandonedAt = Date.now();
      });
      const current = answer;
      void (hook ? hook(request) : Promise.resolve()).then(() => {
        if (current === "hang") return;
        res.writeHead(current.status, current.headers);
        res.end(current.status === 204 ? undefined : "answer body");
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: (next) => (answer = next),
    onRequest: (next) => (hook = next),
    forReference: (reference) =>
      received.filter((request) => {
        try {
          return (JSON.parse(request.body) as { reference?: unknown }).reference === reference;
        } catch {
          return false;
        }
      }),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
