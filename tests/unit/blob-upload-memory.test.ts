import { createHash } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type BodyInit, Request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "@/lib/store/blob";
import { SendOnceStream } from "@/lib/store/streams";
import { liveArrayBufferBytes, MiB } from "../support/memory";

/**
 * What the process holds while a spooled upload is committed to Vercel Blob, through the real SDK.
 * The Blob API here is a receiver that hashes what it reads and keeps none of it, so that any
 * memory the upload still holds is the client's: the moment it has read the whole body it holds
 * its answer, and the test collects garbage and measures what is left.
 */

const FILE_BYTES = 48 * MiB;

interface Received {
  pathname: string | null;
  bytes: number;
  sha256: string;
  answer: ServerResponse;
}

let server: Server;
let received: (body: Received) => void;
const savedApiUrl = process.env.VERCEL_BLOB_API_URL;

beforeAll(async () => {
  server = createServer((request, response) => {
    const pathname = new URL(request.url ?? "/", "http://receiver").searchParams.get("pathname");
    const hash = createHash("sha256");
    let bytes = 0;
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.byteLength;
      hash.update(chunk);
    });
    request.on("end", () => received({ pathname, bytes, sha256: hash.digest("hex"), answer: response }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.VERCEL_BLOB_API_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/blob`;
});

afterAll(async () => {
  if (savedApiUrl === undefined) delete process.env.VERCEL_BLOB_API_URL;
  else process.env.VERCEL_BLOB_API_URL = savedApiUrl;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("committing a spooled upload to Vercel Blob", () => {
  it("sends the file without keeping what it sent: the bytes arrive exact, the process holds a fraction", async () => {
    const store = new BlobStore("vercel_blob_rw_receiver_secret");
    const upload = await store.beginUpload();
    const written = createHash("sha256");
    const chunk = new Uint8Array(MiB);
    for (let i = 0; i < FILE_BYTES / MiB; i++) {
      chunk.fill(i);
      chunk[0] = i >> 8; // no two MiB alike
      written.update(chunk);
      await upload.write(chunk);
    }

    const before = await liveArrayBufferBytes();
    const arrived = new Promise<Received>((resolve) => (received = resolve));
    const committed = upload.commit("briefs/x/attachment.pdf", "application/pdf");
    const body = await arrived;
    const held = (await liveArrayBufferBytes()) - before;
    body.answer.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        url: "https://receiver.private.blob.vercel-storage.com/briefs/x/attachment.pdf",
        downloadUrl: "https://receiver.private.blob.vercel-storage.com/briefs/x/attachment.pdf?download=1",
        pathname: body.pathname,
        contentType: "application/pdf",
        contentDisposition: 'attachment; filename="attachment.pdf"',
        etag: '"1"',
      }),
    );
    await committed;

    expect({ pathname: body.pathname, bytes: body.bytes, sha256: body.sha256 }).toEqual({
      pathname: "briefs/x/attachment.pdf",
      bytes: FILE_BYTES,
      sha256: written.digest("hex"),
    });
    // A tee'd body would hold all 48 MiB here; a few chunks in the HTTP client's hands is the floor.
    expect(held / MiB, "MiB held while the answer is awaited").toBeLessThan(4);
  });

  it("a clone of a request sent with it gets the stream, and the original fails if read instead of holding a copy", async () => {
    const body = new SendOnceStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("the file"));
        controller.close();
      },
    });
    // fetch clones every request this way before sending it (undici's, as @vercel/blob calls it);
    // undici's types know their own ReadableStream, not the global one it is at run time.
    const original = new Request("http://receiver/", {
      method: "PUT",
      body: body as unknown as BodyInit,
      duplex: "half",
    });
    const sent = original.clone();
    expect(await sent.text()).toBe("the file");
    await expect(original.text()).rejects.toThrow("A body streamed once cannot be read again.");
  });
});
