/**
 * The inbox benches' stored briefs (bench:inbox, bench:deliveries): generated in the service's
 * layout, written to a filesystem inbox or into the Blob stand-in, and a remote store's latency
 * simulated by holding back every call.
 */
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ObjectStore } from "../../lib/store";
import { newReference } from "../../lib/reference";
import type { BlobStandIn } from "../../tests/support/blob-standin";

export interface BenchBrief {
  folder: string;
  files: Record<string, string>;
  reference: string;
}

/**
 * One brief's files, as the service writes them (the layout only: this measures reading), received
 * in one of ten months of 2026 (or `receivedAt`).
 */
export function briefFiles(index: number, needleAt = -1, needle = "", receivedAt?: Date): BenchBrief {
  const month = (index % 10) + 1;
  const day = (index % 28) + 1;
  const at = receivedAt ?? new Date(Date.UTC(2026, month - 1, day, index % 24, index % 60, 0, index % 1000));
  const reference = newReference();
  const folder = `briefs/${at.toISOString().slice(0, 10).replaceAll("-", "/")}/${reference}`;
  const record = {
    reference,
    receivedAt: at.toISOString(),
    name: `Person ${index}`,
    email: `person${index}@client${index % 300}.example`,
    company: index % 3 === 0 ? null : `Company ${index % 700}`,
    role: null,
    projectType: "web-application",
    budget: "50k-100k",
    timeline: "3-6-months",
    description:
      `${index === needleAt ? `${needle} ` : ""}We need a platform for our field teams. ` +
      randomBytes(300).toString("base64"),
    consent: true,
    attachment: null,
    verification: "off",
    client: { ipHash: null, userAgent: "bench", origin: null },
  };
  const files: Record<string, string> = {
    "brief.json": `${JSON.stringify(record, null, 2)}\n`,
    "delivery.json": `${JSON.stringify({ email: { ok: true, at: at.toISOString() } })}\n`,
  };
  if (index % 3 === 0) {
    const status = index % 2 === 0 ? "handled" : "archived";
    files["state.json"] =
      `${JSON.stringify({ status, notes: [], history: [{ status, by: "bench", at: at.toISOString() }] })}\n`;
  }
  return { folder, files, reference };
}

/**
 * `store` with `before` run ahead of every call it makes, and ahead of each further page of 1,000
 * names a listing yields (as a remote store answers a listing a page at a time).
 */
function beforeEachCall(store: ObjectStore, before: () => Promise<void> | void): ObjectStore {
  const wrapped =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await before();
      return call(...args);
    };
  return {
    driver: store.driver,
    put: wrapped(store.put.bind(store)),
    putAll: wrapped(store.putAll.bind(store)),
    beginUpload: wrapped(store.beginUpload.bind(store)),
    removeAbandonedUploads: wrapped(store.removeAbandonedUploads.bind(store)),
    create: wrapped(store.create.bind(store)),
    get: wrapped(store.get.bind(store)),
    getStream: wrapped(store.getStream.bind(store)),
    getVersioned: wrapped(store.getVersioned.bind(store)),
    putIfVersion: wrapped(store.putIfVersion.bind(store)),
    deleteIfVersion: wrapped(store.deleteIfVersion.bind(store)),
    copy: wrapped(store.copy.bind(store)),
    delete: wrapped(store.delete.bind(store)),
    async *list(prefix, options) {
      let count = 0;
      await before();
      for await (const info of store.list(prefix, options)) {
        if (++count % 1000 === 0) await before();
        yield info;
      }
    },
  };
}

/** Every call of `store` waits `ms` first, as a remote store's round trip does (list: each page of 1,000). */
export function withLatency(store: ObjectStore, ms: number): ObjectStore {
  return beforeEachCall(store, () => new Promise((resolve) => setTimeout(resolve, ms)));
}

/** `store` with a count of the calls made through it (each listing counted once per page of 1,000). */
export function countingCalls(store: ObjectStore): { store: ObjectStore; calls: () => number } {
  let calls = 0;
  return { store: beforeEachCall(store, () => void calls++), calls: () => calls };
}

/** Writes `briefs` under `dir`, as the filesystem inbox keeps them. */
export async function writeBriefsTo(dir: string, briefs: readonly BenchBrief[]): Promise<void> {
  for (const brief of briefs) {
    for (const [name, body] of Object.entries(brief.files)) {
      const path = join(dir, brief.folder, name);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, body);
    }
  }
}

/** Puts `briefs` straight into the Blob stand-in's objects (the bench measures reading, not this). */
export function putBriefsIn(standIn: BlobStandIn, briefs: readonly BenchBrief[]): void {
  for (const brief of briefs) {
    for (const [name, body] of Object.entries(brief.files)) {
      const pathname = `${brief.folder}/${name}`;
      standIn.objects.set(pathname, {
        pathname,
        body: Buffer.from(body),
        contentType: "application/json",
        access: "private",
        uploadedAt: new Date(),
        etag: `"${randomBytes(8).toString("hex")}"`,
      });
    }
  }
}
