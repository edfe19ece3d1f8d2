import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { briefForm, multipartBody, nextAddress, postContact, textPart, validBrief } from "../support/contact";
import { makePdf } from "../support/files";
import { listInbox } from "../support/inbox";
import { type AppServer, startApp, tempDir } from "../support/server";

/**
 * A client that goes away mid-request (contract, Robustness): nothing is stored, the server goes
 * on, and the log shows no 500 and no stack, at most one info line per request. Each request here
 * is a raw socket that sends its head and part of its body, then is destroyed.
 */

const BOUNDARY = "----abandoned9d2c";

/** Sends `head` and `body` on a fresh connection, waits for the server to be reading, then drops it. */
async function abandon(port: number, head: string, body: Buffer, readingMs = 400): Promise<void> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  socket.write(Buffer.concat([Buffer.from(head, "latin1"), body]));
  await new Promise((resolve) => setTimeout(resolve, readingMs));
  await new Promise<void>((resolve) => {
    socket.once("close", () => resolve());
    socket.destroy();
  });
}

function requestHead(path: string, port: number, headers: Record<string, string | number>): string {
  const lines = [`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** The start of a contact form: every field, then a file part that is still arriving. */
function contactBodyStart(): Buffer {
  const fields = multipartBody(
    BOUNDARY,
    Object.entries(validBrief()).map(([name, value]) => textPart(name, value)),
  );
  const closing = Buffer.byteLength(`--${BOUNDARY}--\r\n`);
  return Buffer.concat([
    fields.subarray(0, fields.length - closing),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="brief"; filename="brief.pdf"\r\n` +
        "Content-Type: application/pdf\r\n\r\n",
      "latin1",
    ),
    Buffer.from(makePdf("A brief that never finishes arriving")),
    Buffer.alloc(256 * 1024, 0x20),
  ]);
}

/** As HTTP/1.1 chunked transfer coding: one chunk per piece, and no last chunk. */
function chunked(...pieces: Buffer[]): Buffer {
  return Buffer.concat(
    pieces.flatMap((piece) => [Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]),
  );
}

/** What the server printed after `mark`, in lines. */
function linesSince(app: AppServer, mark: number): string[] {
  return app
    .output()
    .slice(mark)
    .split("\n")
    .filter((line) => line.trim() !== "");
}

/** The log after the abandoned requests: no 500, no stack, at most one line each, no client address. */
function expectQuietLog(lines: string[], requests: number, addresses: string[]): void {
  const log = lines.join("\n");
  expect(log).not.toContain("unexpected error");
  expect(log).not.toMatch(/^\s*at /m);
  expect(log).not.toMatch(/Error: aborted|ECONNRESET/);
  expect(lines.length, log).toBeLessThanOrEqual(requests);
  for (const line of lines) expect(line).toMatch(/^\[api\] \/api\/[a-z/]+: the client went away/);
  for (const address of [...addresses, "127.0.0.1"]) expect(log).not.toContain(address);
}

describe("clients that go away mid-request, filesystem inbox", () => {
  let app: AppServer;
  let inbox: string;

  beforeAll(async () => {
    inbox = await tempDir();
    app = await startApp({ INBOX_DIR: inbox });
  });

  afterAll(async () => {
    await app?.stop();
  });

  it("stores nothing, logs no error or stack, and goes on serving", async () => {
    const mark = app.output().length;
    const addresses = [nextAddress(), nextAddress(), nextAddress()];
    const multipart = `multipart/form-data; boundary=${BOUNDARY}`;
    const body = contactBodyStart();

    // A contact form with a file, declared at 5 MiB, gone after 300 KiB.
    await abandon(
      app.port,
      requestHead("/api/contact", app.port, {
        "Content-Type": multipart,
        "Content-Length": 5 * 1024 * 1024,
        "X-Forwarded-For": addresses[0] as string,
      }),
      body,
    );
    // The same, sent chunked with no Content-Length.
    await abandon(
      app.port,
      requestHead("/api/contact", app.port, {
        "Content-Type": multipart,
        "Transfer-Encoding": "chunked",
        "X-Forwarded-For": addresses[1] as string,
      }),
      chunked(body.subarray(0, 1000), body.subarray(1000)),
    );
    // A newsletter subscription cut off in its JSON.
    await abandon(
      app.port,
      requestHead("/api/newsletter", app.port, {
        "Content-Type": "application/json",
        "Content-Length": 1000,
        "X-Forwarded-For": addresses[2] as string,
      }),
      Buffer.from('{"email":"gone@example.com","topics":["A'),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
    expect(await listInbox(inbox)).toEqual([]);
    expectQuietLog(linesSince(app, mark), 3, addresses);

    const response = await postContact(app.url, briefForm(validBrief({ name: "After the hang-ups" })));
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    const stored = await listInbox(inbox);
    expect(stored.length).toBeGreaterThan(0);
    for (const file of stored) expect(file).toContain(`/${reference}/`);
  });
});

describe("a client that goes away mid-request, POST /api/contact/upload (Blob inbox)", () => {
  let standIn: BlobStandIn;
  let app: AppServer;

  beforeAll(async () => {
    standIn = await startBlobStandIn();
    app = await startApp(blobEnv(standIn.token, standIn.origin));
  });

  afterAll(async () => {
    await app?.stop();
    await standIn?.close();
  });

  it("logs no error or stack, and goes on serving", async () => {
    const mark = app.output().length;
    const address = nextAddress();
    await abandon(
      app.port,
      requestHead("/api/contact/upload", app.port, {
        "Content-Type": "application/json",
        "Content-Length": 1000,
        "X-Forwarded-For": address,
      }),
      Buffer.from('{"type":"blob.generate-client-token","payload":{"pathname":"staging/'),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
    expectQuietLog(linesSince(app, mark), 1, [address]);
    expect(standIn.requests.filter((request) => request.operation === "put")).toEqual([]);
  });
});
