import { createHash } from "node:crypto";
import {
  ATTACHMENT_REFUSAL_MESSAGES,
  cleanFileName,
  inspectAttachment,
  inspectBytes,
  TextScan,
} from "../attachments";
import type { FileSink } from "../http/body";
import { finishInBackground } from "../background";
import { CallDeadlines, type ObjectStore, type ObjectUpload } from "../store";
import { type AttachmentUpload } from "../briefs";

/** The bound on each store call of an upload as it arrives (see `IncomingFile`). */
const UPLOAD_CALL_MS = 2_000;

/**
 * A file's bytes as the attachment a brief stores: the type from the bytes, the visitor's name
 * kept cleaned as metadata, size and sha256. For bytes already in memory; a file in the form goes
 * through `IncomingFile` instead, and never sits whole in memory.
 */
export async function describeAttachment(
  chunks: readonly Uint8Array[],
  fileName: string,
): Promise<AttachmentUpload | string> {
  const originalName = cleanFileName(fileName);
  const inspection = await inspectAttachment(chunks, originalName);
  if (!inspection.ok) return inspection.message;
  const { type } = inspection;

  const hash = createHash("sha256");
  let size = 0;
  for (const chunk of chunks) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return {
    record: {
      filename: `attachment.${type.ext}`,
      originalName,
      contentType: type.contentType,
      size,
      sha256: hash.digest("hex"),
    },
    chunks,
  };
}

/**
 * A file on its way into the inbox, a chunk at a time: each chunk goes to a store upload (a
 * temporary file renamed into the brief's folder on the filesystem, a spool streamed to Vercel
 * Blob), and on the way its sha256, size and whether it is text are gathered. Once all of it is
 * in, `describe` reads its type from its first bytes (a DOCX from its ZIP entries, read back from
 * the upload) and hands the upload to the brief, whose save commits it. A refused file is
 * discarded by its `AttachmentIntake`.
 */
export class IncomingFile implements FileSink {
  private readonly hash = createHash("sha256");
  private readonly scan = new TextScan();
  private upload: ObjectUpload | null = null;
  private starting: Promise<ObjectUpload> | null = null;
  /**
   * Bounds and tracks every store call of this file. Each gets `UPLOAD_CALL_MS` of its own: the
   * client sets the pace of the whole upload, but a disk or store that stops answering must still
   * turn into a 503 well within the request's 10 s (the save after it has its own 6 s + 1.5 s).
   */
  private readonly calls = new CallDeadlines(UPLOAD_CALL_MS);

  constructor(private readonly store: ObjectStore) {}

  async write(chunk: Uint8Array): Promise<void> {
    if (chunk.byteLength === 0) return;
    this.starting ??= this.calls
      .run((options) => this.store.beginUpload(options))
      .then((upload) => (this.upload = upload));
    try {
      const upload = await this.starting;
      this.hash.update(chunk);
      this.scan.update(chunk);
      await this.calls.run((options) => upload.write(chunk, options));
    } catch (error) {
      console.error("[contact] the attached file could not be written to the inbox", error);
      throw error;
    }
  }

  /** The attachment to store, or why it is refused. Call once, after the last `write`. */
  async describe(fileName: string): Promise<AttachmentUpload | string> {
    const originalName = cleanFileName(fileName);
    const upload = this.upload;
    if (upload === null) return ATTACHMENT_REFUSAL_MESSAGES.empty; // no byte was ever written
    const inspection = await inspectBytes(upload, this.scan.finish(), originalName);
    if (!inspection.ok) return inspection.message;
    const { type } = inspection;
    return {
      record: {
        filename: `attachment.${type.ext}`,
        originalName,
        contentType: type.contentType,
        size: upload.size,
        sha256: this.hash.digest("hex"),
      },
      upload,
    };
  }

  /**
   * Removes the temporary bytes unless the brief's save committed them. When a call is still
   * waiting on the disk, the removal runs once it settles, after the response.
   */
  async discard(): Promise<void> {
    if (!this.calls.pending) {
      await this.upload?.discard();
      return;
    }
    finishInBackground(
      this.calls.settled().then(() => this.upload?.discard()),
      "removing an upload's temporary file",
    );
  }
}

/**
 * The files of one request: opens an `IncomingFile` for each file part the form keeps
 * (`readMultipart`'s sink) and, whatever becomes of the request, removes at its end every one
 * that no brief committed: a refused, oversized or aborted upload leaves nothing behind.
 */
export class AttachmentIntake {
  private readonly files: IncomingFile[] = [];

  constructor(private readonly store: ObjectStore) {}

  /** For `readMultipart`: every kept file part is streamed to the store. */
  readonly open = (): FileSink => {
    const file = new IncomingFile(this.store);
    this.files.push(file);
    return file;
  };

  /** Call when the request is answered; never rejects (a failure is logged). */
  async discard(): Promise<void> {
    await Promise.all(
      this.files.map((file) =>
        file.discard().catch((error: unknown) => {
          console.error("[contact] could not remove an upload's temporary file", error);
        }),
      ),
    );
  }
}
