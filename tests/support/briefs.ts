import { createHash } from "node:crypto";
import { type ObjectStore } from "@/lib/store";
import {
  type AttachmentRecord,
  type AttachmentUpload,
  type BriefRecord,
  type Folder,
  saveBrief,
} from "@/lib/briefs";
import type { DeliveryInput as Delivery } from "@/lib/briefs";
import { newReference } from "@/lib/reference";
import { markFailed, writeDue } from "@/lib/deliveries/records";
import type { Target } from "@/lib/deliveries";

/**
 * Briefs stored by the service's own `saveBrief`, for tests that fill an inbox. Kept apart from
 * ops.ts (which runs the tool through tsx) so that Playwright can load it too.
 */

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
    attribution: null,
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

/**
 * A brief with one channel retrying or given up, as lib/deliveries leaves it: `delivery.json`
 * saying so (with its log) and the due or failed record under `deliveries/`.
 */
export async function storeUndelivered(
  store: ObjectStore,
  state: "retrying" | "failed",
  options: StoreBriefOptions & {
    channel?: Target;
    error?: string;
    /** The next attempt (default: 5 minutes after it came in); ahead of the clock, no scheduler takes it. */
    dueAt?: string;
  } = {},
): Promise<{ record: BriefRecord; folder: string }> {
  const channel = options.channel ?? "webhook";
  const error = options.error ?? "the webhook answered 503";
  const at = options.receivedAt ?? new Date().toISOString();
  const dueAt = options.dueAt ?? new Date(Date.parse(at) + 5 * 60_000).toISOString();
  const log = [
    { at, ok: false, ms: 120, status: 503, error },
    { at, ok: false, ms: 95, status: 503, error },
  ];
  const outcome =
    state === "retrying"
      ? { state, ok: false, at, attempts: 2, nextAttemptAt: dueAt, error, log }
      : { state, ok: false, at, attempts: 2, error, log };
  const stored = await storeBrief(store, { ...options, delivery: { [channel]: outcome } });
  const pending = { reference: stored.record.reference, folder: stored.folder, channel };
  if (state === "retrying") await writeDue(store, { ...pending, dueAt });
  else await markFailed(store, { ...pending, at, error });
  return stored;
}
