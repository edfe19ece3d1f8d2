import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { blobEnv } from "../support/blob-app";
import { type BlobStandIn, startBlobStandIn } from "../support/blob-standin";
import { briefForm, postContact, validBrief } from "../support/contact";
import { makePdf } from "../support/files";
import { postNewsletter } from "../support/newsletter";
import { type AppServer, freePort, startApp } from "../support/server";

/**
 * The contact route under `next start` with the Vercel Blob inbox: the real SDK in the app talks
 * to the local stand-in (VERCEL_BLOB_API_URL), and the test preload routes its private reads to it
 * and keeps everything on loopback.
 */

const CONTRACT_STORE_DOWN_MS = 10_000;

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

beforeEach(() => {
  standIn.fault = null;
  standIn.requests.length = 0;
});

type Stored = { reference: string; forwarded: string[] };

describe("contact with the Vercel Blob inbox", () => {
  it("reports the vercel-blob driver", async () => {
    expect(await (await fetch(`${app.url}/api/health`)).json()).toMatchObject({ inbox: "vercel-blob" });
  });

  it("stores the attachment, then brief.json, as private objects in the layout", async () => {
    const pdf = makePdf("Our project brief");
    const response = await postContact(
      app.url,
      briefForm(validBrief(), { bytes: pdf, name: "brief.pdf", type: "application/pdf" }),
    );
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as Stored;
    const day = new Date().toISOString().slice(0, 10).replaceAll("-", "/");
    const base = `briefs/${day}/${reference}`;

    expect(standIn.requests.map((request) => `${request.operation} ${request.pathname}`)).toEqual([
      `put ${base}/attachment.pdf`,
      // No channel is configured here, so how notifying went (`{}`) is known before the commit
      // point and written just before it; brief.json, the commit point, is last.
      `put ${base}/delivery.json`,
      `put ${base}/brief.json`,
    ]);
    const attachment = standIn.objects.get(`${base}/attachment.pdf`);
    const brief = standIn.objects.get(`${base}/brief.json`);
    expect(attachment).toMatchObject({ access: "private", contentType: "application/pdf" });
    expect(brief).toMatchObject({ access: "private", contentType: "application/json" });
    expect(standIn.objects.get(`${base}/delivery.json`)).toMatchObject({ access: "private" });
    expect(JSON.parse(standIn.objects.get(`${base}/delivery.json`)?.body.toString("utf8") ?? "")).toEqual({});
    expect(Buffer.compare(attachment?.body ?? Buffer.alloc(0), Buffer.from(pdf))).toBe(0);
    expect(JSON.parse(brief?.body.toString("utf8") ?? "")).toMatchObject({
      reference,
      name: "Ada Lovelace",
      consent: true,
      attachment: {
        filename: "attachment.pdf",
        originalName: "brief.pdf",
        contentType: "application/pdf",
        size: pdf.byteLength,
        sha256: createHash("sha256").update(pdf).digest("hex"),
      },
    });
    for (const request of standIn.requests) {
      expect(request.headers["x-vercel-blob-access"]).toBe("private");
      expect(request.headers["x-add-random-suffix"]).toBe("0");
    }
  });

  it("files a honeypot catch under spam/", async () => {
    const response = await postContact(app.url, briefForm(validBrief({ website: "https://spam.example" })));
    expect(response.status).toBe(200);
    const { reference } = (await response.json()) as Stored;
    const paths = [...standIn.objects.keys()].filter((path) => path.includes(reference));
    expect(paths).toEqual([
      expect.stringMatching(new RegExp(`^spam/\\d{4}/\\d{2}/\\d{2}/${reference}/brief\\.json$`)),
    ]);
  });

  it("a store answering 5xx: 503 storage_unavailable within 10 s, and no part of the brief is left", async () => {
    standIn.fault = { status: 503 };
    const before = new Set(standIn.objects.keys());
    const started = Date.now();
    const response = await postContact(app.url, briefForm(validBrief(), { bytes: makePdf(), name: "b.pdf" }));
    const elapsed = Date.now() - started;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
    expect(elapsed).toBeLessThan(CONTRACT_STORE_DOWN_MS);
    // The SDK did retry before the deadline cut it short.
    expect(standIn.requests.filter((request) => request.operation === "put").length).toBeGreaterThanOrEqual(
      2,
    );
    expect([...standIn.objects.keys()].filter((path) => !before.has(path))).toEqual([]);
  });

  it("brief.json refused after the attachment landed: 503, and the attachment is removed", async () => {
    standIn.fault = {
      status: 500,
      match: ({ operation, pathname }) => operation === "put" && !!pathname?.endsWith("/brief.json"),
    };
    const before = new Set(standIn.objects.keys());
    const response = await postContact(app.url, briefForm(validBrief(), { bytes: makePdf(), name: "b.pdf" }));
    expect(response.status).toBe(503);
    const attachmentPut = standIn.requests.find((request) => request.pathname?.endsWith("/attachment.pdf"));
    expect(attachmentPut?.status).toBe(200);
    expect([...standIn.objects.keys()].filter((path) => !before.has(path))).toEqual([]);
  });
});

describe("newsletter with the Vercel Blob inbox", () => {
  const subscriberPath = (email: string) =>
    `newsletter/subscribers/${createHash("sha256").update(email.toLowerCase()).digest("hex")}.json`;

  it("gives exactly one 'subscribed' to 20 concurrent first requests, through create-if-absent", async () => {
    const email = "Concurrent.Reader@Example.com";
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postNewsletter(app.url, { email: i % 2 ? email : email.toLowerCase(), topics: ["AI"] }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(new Array(20).fill(200));
    const statuses = await Promise.all(
      responses.map(async (response) => ((await response.json()) as { status: string }).status),
    );
    expect(statuses.filter((status) => status === "subscribed")).toHaveLength(1);
    expect(statuses.filter((status) => status === "already-subscribed")).toHaveLength(19);

    const stored = standIn.objects.get(subscriberPath(email));
    expect(stored).toMatchObject({ access: "private", contentType: "application/json" });
    expect(JSON.parse(stored?.body.toString("utf8") ?? "")).toMatchObject({ topics: ["AI"] });
    expect([...standIn.objects.keys()].filter((path) => path.startsWith("newsletter/"))).toContain(
      subscriberPath(email),
    );
  });

  it("merges the topics of a later request into the stored record", async () => {
    const email = "merge.reader@example.com";
    await postNewsletter(app.url, { email, topics: ["Research"] });
    const again = await postNewsletter(app.url, {
      email: email.toUpperCase(),
      topics: ["Quantum", "Research"],
    });
    expect(await again.json()).toEqual({ ok: true, status: "already-subscribed" });
    const stored = JSON.parse(standIn.objects.get(subscriberPath(email))?.body.toString("utf8") ?? "");
    expect(stored).toMatchObject({ email, topics: ["Research", "Quantum"] });
  });
});

describe("contact with a Blob store that is not there", () => {
  let dead: AppServer;

  beforeAll(async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    dead = await startApp(blobEnv(standIn.token, closed));
  });

  afterAll(async () => {
    await dead?.stop();
  });

  it("answers 503 storage_unavailable within 10 s, and logs it", async () => {
    const started = Date.now();
    const response = await postContact(
      dead.url,
      briefForm(validBrief(), { bytes: makePdf(), name: "b.pdf" }),
    );
    const elapsed = Date.now() - started;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
    expect(elapsed).toBeLessThan(CONTRACT_STORE_DOWN_MS);
    expect(dead.output()).toMatch(/\[contact\] brief \S+ not stored/);
  });

  it("still answers health, with the delivery counts it could not list as null, within about 2 s", async () => {
    const started = Date.now();
    const response = await fetch(`${dead.url}/api/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, inbox: "vercel-blob", deliveries: null });
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});

describe("the test preload that next start runs with", () => {
  it("routes the SDK's private reads to the stand-in and refuses any host off this machine", async () => {
    standIn.objects.set("preload/check.txt", {
      pathname: "preload/check.txt",
      body: Buffer.from("read through the preload"),
      contentType: "text/plain",
      access: "private",
      uploadedAt: new Date(),
      etag: '"1"',
    });
    const script = `
      const { get } = require("@vercel/blob");
      (async () => {
        const result = await get("preload/check.txt", { access: "private", token: process.env.BLOB_READ_WRITE_TOKEN, useCache: false });
        console.log(await new Response(result.stream).text());
        // 127.0.0.2 is off the allowed list, yet still loopback should the guard ever fail.
        await fetch("http://127.0.0.2:65000/").then(() => console.log("reached"), (error) => console.log(String(error.cause ?? error)));
      })();
    `;
    const output = await new Promise<string>((done, fail) => {
      const child = spawn(process.execPath, ["-e", script], {
        env: {
          PATH: process.env.PATH ?? "",
          NODE_ENV: "production",
          ...blobEnv(standIn.token, standIn.origin),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.once("error", fail);
      child.once("exit", () => done(text));
    });
    expect(output).toContain("read through the preload");
    expect(output).toMatch(/Tests may only use loopback; refused a request to http:\/\/127\.0\.0\.2:65000/);
    expect(output).not.toContain("reached");
  });
});
