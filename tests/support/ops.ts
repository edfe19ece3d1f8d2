import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type AttachmentRecord,
  type AttachmentUpload,
  type BriefRecord,
  type Folder,
  type ObjectStore,
  saveBrief,
} from "@/lib/inbox";
import type { Delivery } from "@/lib/notify";
import { newReference } from "@/lib/reference";

const SCRIPT = resolve("scripts/inbox.ts");
/** tsx's loader by absolute URL, so the tool also runs from another working directory. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

export interface ToolRun {
  code: number | null;
  stdout: string;
  /** stdout as bytes, for `attachment --out -`. */
  stdoutBytes: Buffer;
  stderr: string;
  elapsedMs: number;
}

/**
 * Runs the ops tool as ops do, in a process of its own (`node --import tsx scripts/inbox.ts`),
 * with only the given variables set (plus PATH and HOME), so nothing leaks in from the test's
 * environment.
 */
export function runInbox(
  args: readonly string[],
  options: { env: Record<string, string>; cwd?: string; timeoutMs?: number },
): Promise<ToolRun> {
  const startedAt = Date.now();
  const child = spawn(process.execPath, ["--import", TSX_LOADER, SCRIPT, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  return new Promise((resolvePromise, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolvePromise({
        code,
        stdout: stdoutBytes.toString("utf8"),
        stdoutBytes,
        stderr: Buffer.concat(err).toString("utf8"),
        elapsedMs: Date.now() - startedAt,
      });
    });
  });
}

export function attachmentFor(
  bytes: Uint8Array,
  originalName: string,
  type: string,
  ext: string,
): AttachmentUpload {
  const record: AttachmentRecord = {
    filename: `attachment.${ext}`,
    originalName,
    contentType: type,
    size: bytes.byteLength,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
  return { record, chunks: [bytes] };
}

export interface StoreBriefOptions {
  receivedAt?: string;
  fields?: Partial<Omit<BriefRecord, "reference" | "receivedAt" | "attachment" | "client">>;
  attachment?: AttachmentUpload | null;
  folder?: Folder;
  /** Written as `delivery.json`; `undefined` leaves the brief without one. */
  delivery?: Delivery;
}

/** Stores a brief with the service's own `saveBrief` (and `delivery.json` as given); returns its record and folder. */
export async function storeBrief(
  store: ObjectStore,
  options: StoreBriefOptions = {},
): Promise<{ record: BriefRecord; folder: string }> {
  const attachment = options.attachment ?? null;
  const record: BriefRecord = {
    reference: newReference(),
    receivedAt: options.receivedAt ?? new Date().toISOString(),
    name: "Ada Lovelace",
    email: "ada@example.com",
    company: "Analytical Engines Ltd",
    role: "Founder",
    projectType: "ai-system",
    budget: "50k-100k",
    timeline: "3-6-months",
    description: "We need a system that computes Bernoulli numbers and explains its reasoning.",
    consent: true,
    verification: "passed",
    ...options.fields,
    attachment: attachment?.record ?? null,
    client: { ipHash: "ab".repeat(32), userAgent: "Mozilla/5.0 (test)", origin: "https://studio.example" },
  };
  const folder = await saveBrief(store, options.folder ?? "briefs", record, attachment);
  if (options.delivery) {
    await store.put(
      `${folder}/delivery.json`,
      `${JSON.stringify(options.delivery, null, 2)}\n`,
      "application/json",
    );
  }
  return { record, folder };
}

export async function readJson<T>(store: ObjectStore, path: string): Promise<T | null> {
  const bytes = await store.get(path);
  return bytes === null ? null : (JSON.parse(Buffer.from(bytes).toString("utf8")) as T);
}
