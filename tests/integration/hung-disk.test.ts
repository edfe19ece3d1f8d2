import { execFile } from "node:child_process";
import { mkdir, open, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { briefForm, nextAddress, postContact, validBrief } from "../support/contact";
import { makePdf } from "../support/files";
import { listInbox } from "../support/inbox";
import { postNewsletter, subscriberFile } from "../support/newsletter";
import { type AppServer, startApp, tempDir } from "../support/server";

/**
 * A disk that hangs, under `next start` with the filesystem inbox. Node runs file system calls
 * on a pool of four threads; a subscriber "file" that is really a FIFO with no writer blocks the
 * thread that opens it until someone writes. Four such reads take the whole pool, so every later
 * file system call of the server waits, as it would on a hung disk. Then the disk recovers (the
 * FIFOs are written). A request must be answered 503 within the contract's 10 s while the disk
 * hangs, and whatever its calls do once the disk recovers must be undone: no brief remains that
 * the visitor was told had failed.
 */

const CONTRACT_MS = 10_000;
const POOL_SIZE = 4; // libuv's default, which `next start` uses

let app: AppServer;
let inbox: string;

beforeAll(async () => {
  inbox = await tempDir();
  app = await startApp({ INBOX_DIR: inbox });
});

afterAll(async () => {
  await app?.stop();
});

/** Blocks the server's file system pool on FIFOs; returns how to let the disk recover. */
async function hangTheDisk(): Promise<{ recover: () => Promise<void>; readers: Promise<Response>[] }> {
  const emails = Array.from({ length: POOL_SIZE }, (_, i) => `hung.${i}.${Date.now()}@example.com`);
  const fifos: string[] = [];
  for (const email of emails) {
    const fifo = subscriberFile(inbox, email);
    await mkdir(dirname(fifo), { recursive: true });
    await promisify(execFile)("mkfifo", [fifo]);
    fifos.push(fifo);
  }
  // Each request finds "its record" already there and reads it: the open blocks on the FIFO.
  const readers = emails.map((email) => postNewsletter(app.url, { email }));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return {
    readers,
    async recover() {
      for (const fifo of fifos) {
        // A writer lets the blocked open through; removing the path first means no later read
        // meets a FIFO again; closing the writer ends the read.
        const writer = await open(fifo, "w");
        await unlink(fifo);
        await writer.close();
      }
    },
  };
}

describe("a hung disk", () => {
  it("answers a brief 503 within 10 s, and what lands once the disk recovers is undone", async () => {
    // Warm up: the route is loaded and its folders exist before the disk hangs.
    const warm = await postContact(app.url, briefForm(validBrief()));
    expect(warm.status).toBe(200);
    const stored = await listInbox(inbox);

    const disk = await hangTheDisk();
    let elapsed = Number.POSITIVE_INFINITY;
    let status = 0;
    try {
      const started = Date.now();
      // Bounded here too, so that a server that never answers fails the test instead of hanging it.
      const response = await fetch(`${app.url}/api/contact`, {
        method: "POST",
        body: briefForm(validBrief({ name: "Hung Disk" }), { bytes: makePdf(), name: "brief.pdf" }),
        headers: { "x-forwarded-for": nextAddress() },
        signal: AbortSignal.timeout(2 * CONTRACT_MS),
      });
      elapsed = Date.now() - started;
      status = response.status;
      expect(await response.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
      // The newsletter requests that hung on the disk are answered in bounded time too (before
      // the disk recovers: the brief, whose file streams to the disk as it arrives, fails sooner).
      for (const reader of disk.readers) expect((await reader).status).toBe(503);
    } finally {
      await disk.recover();
    }
    expect(status).toBe(503);
    expect(elapsed).toBeLessThan(CONTRACT_MS);

    // The disk has recovered: the queued calls run now, and the undo after them. Nothing of the
    // refused brief is left (an empty folder may be), and the server works again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const files = (await listInbox(inbox)).filter((file) => !file.startsWith("newsletter/"));
    expect(files).toEqual(stored.filter((file) => !file.startsWith("newsletter/")));
    const after = await postContact(app.url, briefForm(validBrief()));
    expect(after.status).toBe(200);
  });
});
