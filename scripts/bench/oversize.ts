import { connect, type Socket } from "node:net";
import type { AppServer } from "../../tests/support/server";
import { bytesRead } from "./proc";
import { KiB, MiB, nextAddress, sleep } from "./traffic";

/** How much of a declared 100 MiB body the server reads before it answers 413. */

export interface OversizeResult {
  declaredBytes: number;
  status: number;
  answeredAfterMs: number;
  /** Body bytes the client had handed to the kernel when the answer arrived (an upper bound). */
  clientBytesSent: number;
  /** The server's rchar growth (socket and file reads, every thread) when the answer arrived. */
  serverBytesRead: number;
  /** What happens if the client keeps sending for another second after the 413. */
  afterwards: { clientBytesSent: number; serverBytesRead: number; connectionClosed: boolean };
}

/**
 * Declares a 100 MiB body and sends it slowly (16 KiB every 2 ms) so that the answer can arrive
 * between chunks; counts what was sent and what the server read at the moment it did.
 */
export async function measureDeclaredOversize(app: AppServer, pid: number): Promise<OversizeResult> {
  const declared = 100 * MiB;
  const socket: Socket = connect(app.port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let closed = false;
  socket.on("close", () => (closed = true));
  socket.on("error", () => {}); // writing after the server closed: expected, seen as `closed`

  let sent = 0;
  let answer = "";
  let answered: { at: number; sent: number; read: Promise<number> } | null = null;
  const readBefore = await bytesRead(pid);
  const started = performance.now();
  socket.on("data", (chunk: Buffer) => {
    answer += chunk.toString("latin1");
    answered ??= { at: performance.now() - started, sent, read: bytesRead(pid) };
  });
  socket.write(
    `POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\n` +
      `Content-Type: multipart/form-data; boundary=oversize\r\nContent-Length: ${declared}\r\n` +
      `X-Forwarded-For: ${nextAddress()}\r\n\r\n` +
      `--oversize\r\nContent-Disposition: form-data; name="brief"; filename="big.txt"\r\n\r\n`,
  );
  const chunk = Buffer.alloc(16 * KiB, "a");
  const send = async (until: () => boolean) => {
    while (!until() && !closed && sent + chunk.byteLength <= declared) {
      await new Promise<void>((resolve) =>
        socket.write(chunk, (error) => {
          if (!error) sent += chunk.byteLength;
          resolve();
        }),
      );
      await sleep(2);
    }
  };
  await send(() => answered !== null || performance.now() - started > 15_000);
  const first = answered as { at: number; sent: number; read: Promise<number> } | null;
  if (!first) throw new Error("no answer to a declared 100 MiB body within 15 s");
  const serverBytesRead = (await first.read) - readBefore;

  const afterStart = performance.now();
  await send(() => performance.now() - afterStart > 1000);
  const afterwards = {
    clientBytesSent: sent,
    serverBytesRead: (await bytesRead(pid)) - readBefore,
    connectionClosed: closed,
  };
  socket.destroy();
  return {
    declaredBytes: declared,
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0),
    answeredAfterMs: first.at,
    clientBytesSent: first.sent,
    serverBytesRead,
    afterwards,
  };
}
