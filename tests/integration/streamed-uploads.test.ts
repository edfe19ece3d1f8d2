import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { briefForm, nextAddress, postContact, validBrief } from "../support/contact";
import { makeDocx, makeExe, makeFileOfSize, makePdf, TEN_MIB } from "../support/files";
import { listInbox, readBriefJson } from "../support/inbox";
import { type AppServer, startApp, tempDir } from "../support/server";

/**
 * A brief's file is streamed to the store as it arrives (issue 17): on the filesystem into a hidden
 * temporary file at the inbox's root, renamed into the brief's folder once the brief is valid; on
 * Vercel Blob into a spool file in the server's temporary folder, put to the store on commit. Every
 * way a file can fail must leave nothing behind in either place, and a stored file must be the
 * exact bytes, with the sha256 `brief.json` records.
 */

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The spool files a Blob-inbox server has in its temporary folder. */
async function spoolFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith("intake-upload-"));
}

/** Sends the head of a brief with a 5 MiB file, 300 KiB of it, and goes away. */
async function abandonUpload(port: number): Promise<void> {
  const boundary = "----streamedgone";
  const fields = Object.entries(validBrief())
    .map(
      ([name, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    )
    .join("");
  const head =
    `${fields}--${boundary}\r\nContent-Disposition: form-data; name="brief"; filename="brief.pdf"\r\n` +
    "Content-Type: application/pdf\r\n\r\n";
  const body = Buffer.concat([Buffer.from(head), makePdf(undefined, { size: 300 * 1024 })]);
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("error", () => {});
  socket.write(
    `POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${5 * 1024 * 1024}\r\n` +
      `X-Forwarded-For: ${nextAddress()}\r\n\r\n`,
  );
  await new Promise<void>((resolve) => socket.write(body, () => resolve()));
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 500));
}

/** Each way a file fails, posted to `app`; every one must be refused and leave nothing. */
async function postRefusedFiles(app: AppServer): Promise<void> {
  const refused = [
    // A program named and labelled as a PDF: its bytes decide.
    briefForm(validBrief(), { bytes: makeExe(), name: "brief.pdf", type: "application/pdf" }),
    // One byte over 10 MiB: 422 on the brief field, after 10 MiB were streamed.
    briefForm(validBrief(), { bytes: makeFileOfSize("pdf", TEN_MIB + 1), name: "big.pdf" }),
    // A valid file, all of it streamed, but another field is invalid.
    briefForm(validBrief({ email: "not an address" }), {
      bytes: makeFileOfSize("pdf", 2 * 1024 * 1024),
      name: "b.pdf",
    }),
  ];
  for (const form of refused) expect((await postContact(app.url, form)).status).toBe(422);
  await abandonUpload(app.port);
}

describe("streamed uploads, filesystem inbox", () => {
  let app: AppServer;
  let inbox: string;

  beforeAll(async () => {
    inbox = await tempDir();
    app = await startApp({ INBOX_DIR: inbox, CONTACT_RATE_LIMIT: "100/1m" });
  });

  afterAll(async () => {
    await app?.stop();
  });

  it("a refused, oversized, invalid or abandoned upload leaves no file at all, hidden ones included", async () => {
    await postRefusedFiles(app);
    expect(await listInbox(inbox)).toEqual([]);
  });

  it("stores a DOCX (typed from its ZIP entries, read back from the upload) byte for byte with its sha256", async () => {
    const docx = makeDocx({ size: 3 * 1024 * 1024 });
    const response = await postContact(app.url, briefForm(validBrief(), { bytes: docx, name: "Brief.docx" }));
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    const brief = await readBriefJson(inbox, reference);
    expect(brief.attachment).toMatchObject({
      filename: "attachment.docx",
      size: docx.byteLength,
      sha256: sha256(docx),
    });
    const files = await listInbox(inbox);
    const stored = files.find((file) => file.endsWith(`/${reference}/attachment.docx`));
    expect(stored).toBeDefined();
    expect(sha256(await readFile(`${inbox}/${stored}`))).toBe(sha256(docx));
    expect(files.filter((file) => file.split("/").some((part) => part.startsWith(".tmp-")))).toEqual([]);
  });
});

describe("streamed uploads, Vercel Blob inbox", () => {
  let standIn: BlobStandIn;
  let app: AppServer;
  let spoolDir: string;

  beforeAll(async () => {
    standIn = await startBlobStandIn();
    spoolDir = await tempDir("intake-spool-");
    app = await startApp({
      ...blobEnv(standIn.token, standIn.origin),
      CONTACT_RATE_LIMIT: "100/1m",
      TMPDIR: spoolDir,
    });
  });

  afterAll(async () => {
    await app?.stop();
    await standIn?.close();
  });

  it("a refused, oversized, invalid or abandoned upload reaches neither the store nor leaves a spool file", async () => {
    const before = [...standIn.objects.keys()];
    await postRefusedFiles(app);
    expect([...standIn.objects.keys()]).toEqual(before);
    expect(standIn.requests.filter((request) => request.operation === "put")).toEqual([]);
    expect(await spoolFiles(spoolDir)).toEqual([]);
  });

  it("stores a 10 MiB PDF byte for byte with its sha256, and removes its spool file", async () => {
    const pdf = makeFileOfSize("pdf", TEN_MIB);
    const response = await postContact(app.url, briefForm(validBrief(), { bytes: pdf, name: "brief.pdf" }));
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as { reference: string };
    const path = [...standIn.objects.keys()].find((key) => key.endsWith(`/${reference}/attachment.pdf`));
    const stored = standIn.objects.get(path ?? "");
    expect(stored).toMatchObject({ access: "private", contentType: "application/pdf" });
    expect(sha256(stored?.body ?? Buffer.alloc(0))).toBe(sha256(pdf));
    const brief = JSON.parse(
      standIn.objects.get(path?.replace(/attachment\.pdf$/, "brief.json") ?? "")?.body.toString() ?? "{}",
    ) as { attachment: { sha256: string; size: number } };
    expect(brief.attachment).toMatchObject({ sha256: sha256(pdf), size: TEN_MIB });
    expect(await spoolFiles(spoolDir)).toEqual([]);
  });
});
