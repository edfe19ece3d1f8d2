import type { Budget, ProjectType, Timeline } from "../schemas/brief";
import type { ObjectStore } from "./types";

/** What `brief.json` says about the attached file. */
export interface AttachmentRecord {
  /** The stored object's name, e.g. `attachment.pdf`. */
  filename: string;
  /** The visitor's file name, cleaned; metadata only. */
  originalName: string;
  contentType: string;
  size: number;
  sha256: string;
}

export interface ClientRecord {
  /** Salted hash of the client address; `null` when the address is unknown. */
  ipHash: string | null;
  userAgent: string | null;
  origin: string | null;
}

/** The stored form of a brief: `brief.json`. Optional fields the visitor left out are `null`. */
export interface BriefRecord {
  reference: string;
  /** ISO 8601, UTC. */
  receivedAt: string;
  name: string;
  email: string;
  company: string | null;
  role: string | null;
  projectType: ProjectType;
  budget: Budget;
  timeline: Timeline;
  description: string;
  consent: true;
  attachment: AttachmentRecord | null;
  client: ClientRecord;
}

export interface AttachmentUpload {
  record: AttachmentRecord;
  chunks: readonly Uint8Array[];
}

/** Honeypot catches live apart from real briefs, under the same layout. */
export type Folder = "briefs" | "spam";

/** `briefs/YYYY/MM/DD/<reference>` for the UTC day of receipt. */
export function briefFolder(folder: Folder, reference: string, receivedAt: Date): string {
  const day = receivedAt.toISOString().slice(0, 10).replaceAll("-", "/");
  return `${folder}/${day}/${reference}`;
}

/**
 * Stores a brief: the attachment first, then `brief.json`, which is the commit point. If the
 * second write fails, the attachment is removed where possible, so no half-brief remains.
 * Throws `StoreUnavailableError` when the store cannot be written.
 */
export async function saveBrief(
  store: ObjectStore,
  folder: Folder,
  record: BriefRecord,
  attachment: AttachmentUpload | null,
): Promise<string> {
  const base = briefFolder(folder, record.reference, new Date(record.receivedAt));
  if (attachment) {
    await store.put(
      `${base}/${attachment.record.filename}`,
      attachment.chunks,
      attachment.record.contentType,
    );
  }
  try {
    await store.put(`${base}/brief.json`, `${JSON.stringify(record, null, 2)}\n`, "application/json");
  } catch (error) {
    if (attachment) {
      await store.delete(`${base}/${attachment.record.filename}`).catch((cleanupError: unknown) => {
        console.error(`[inbox] could not remove the attachment of unsaved brief ${base}`, cleanupError);
      });
    }
    throw error;
  }
  return base;
}
