import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import {
  createFilesystemWork,
  type FilesystemWork,
  type FilesystemWorkOptions,
  type ModuleLoader,
} from "./filesystem-work";

/** Each operation of the file work: what it is given and what it answers. */
type Operations = {
  [Op in keyof FilesystemWork]: {
    args: Parameters<FilesystemWork[Op]>[0];
    result: Awaited<ReturnType<FilesystemWork[Op]>>;
  };
};

/** Runs the filesystem inbox's file work, and stops what a passed deadline leaves running. */
export interface FileWorker {
  run<Op extends keyof FilesystemWork>(
    op: Op,
    args: Operations[Op]["args"],
    signal?: AbortSignal,
  ): Promise<Operations[Op]["result"]>;
}

/** In this thread: for tests that watch or hold back directory fsyncs with a stand-in. */
export function inlineFileWorker(options: FilesystemWorkOptions): FileWorker {
  const modules: Record<Parameters<ModuleLoader>[0], unknown> = {
    "node:fs": fs,
    "node:path": path,
    "node:crypto": crypto,
  };
  const work = createFilesystemWork((id) => modules[id], options);
  return {
    run: (op, args, signal) =>
      (work[op] as (args: unknown, step: () => void) => Promise<never>)(args, () => signal?.throwIfAborted()),
  };
}

/**
 * The file work on a thread of its own, one per process (so its directory fsyncs are shared by
 * every store on the same inbox, and `unsynced` folders are known in one place). It starts with
 * the first call and does not keep the process alive while idle. Should it stop, the calls it held
 * fail (the caller answers 503, as for a failed disk) and the next call starts a new one.
 */
export function threadFileWorker(): FileWorker {
  shared ??= new WriterThread();
  return shared;
}

let shared: WriterThread | undefined;

/** What the request thread sends: a call, or word that a call's deadline passed. */
type Message = { id: number; op: keyof FilesystemWork; args: unknown } | { abort: number };

/** What the file thread answers a call with. */
type Reply = { id: number; value?: unknown; error?: { name: string; message: string; code?: string } };

/**
 * Messages between the threads go in batches, one per turn of each thread's event loop: under load
 * a turn starts many calls (or finishes many), and every message wakes the other thread, which on
 * a small machine takes the processor from whoever sent it.
 */
class Batches<T> {
  private pending: T[] = [];
  private transfer: ArrayBuffer[] = [];

  constructor(private readonly send: (batch: T[], transfer: ArrayBuffer[]) => void) {}

  push(item: T, transfer: ArrayBuffer[] = []): void {
    if (this.pending.length === 0) setImmediate(() => this.flush());
    this.pending.push(item);
    this.transfer.push(...transfer);
  }

  private flush(): void {
    const { pending, transfer } = this;
    this.pending = [];
    this.transfer = [];
    this.send(pending, transfer);
  }
}

class WriterThread implements FileWorker {
  private thread: { worker: Worker; outbox: Batches<Message> } | null = null;
  private readonly calls = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private ids = 0;

  run<Op extends keyof FilesystemWork>(
    op: Op,
    args: Operations[Op]["args"],
    signal?: AbortSignal,
  ): Promise<Operations[Op]["result"]> {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted();
      const { worker, outbox } = this.start();
      const id = ++this.ids;
      // What runs past the deadline stops at its next system call there.
      const abort = () => outbox.push({ abort: id });
      signal?.addEventListener("abort", abort, { once: true });
      const settle = () => {
        signal?.removeEventListener("abort", abort);
        this.calls.delete(id);
        if (this.calls.size === 0) worker.unref();
      };
      this.calls.set(id, {
        resolve: (value) => {
          settle();
          resolve(value as Operations[Op]["result"]);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      worker.ref();
      outbox.push({ id, op, args });
    });
  }

  private start(): { worker: Worker; outbox: Batches<Message> } {
    if (this.thread) return this.thread;
    // esbuild (tsx, Vitest) names functions through a `__name` helper the source text refers to.
    const source = [
      "const __name = (fn) => fn;",
      `(${serveFilesystemWork.toString()})(require, ${createFilesystemWork.toString()}, ${Batches.toString()});`,
    ].join("\n");
    const worker = new Worker(source, { eval: true });
    worker.unref();
    worker.on("message", (replies: Reply[]) => {
      for (const reply of replies) {
        const call = this.calls.get(reply.id);
        if (!call) continue;
        if (reply.error) call.reject(Object.assign(new Error(reply.error.message), reply.error));
        else call.resolve(reply.value);
      }
    });
    const thread = { worker, outbox: new Batches<Message>((batch) => worker.postMessage(batch)) };
    const stopped = (error: Error) => {
      if (this.thread !== thread) return;
      this.thread = null;
      for (const call of [...this.calls.values()]) call.reject(error);
    };
    worker.on("error", stopped);
    worker.on("exit", (code) => stopped(new Error(`The inbox's file thread stopped (exit code ${code}).`)));
    this.thread = thread;
    return thread;
  }
}

/** The thread's side: runs each call it is sent, and stops the ones whose deadline passed. */
function serveFilesystemWork(
  load: ModuleLoader,
  create: typeof createFilesystemWork,
  BatchesOf: typeof Batches,
): void {
  const { parentPort } = load("node:worker_threads" as never) as typeof import("node:worker_threads");
  const port = parentPort as import("node:worker_threads").MessagePort;
  const work = create(load);
  const running = new Set<number>();
  const aborted = new Set<number>();
  const outbox = new BatchesOf<Reply>((batch, transfer) => port.postMessage(batch, transfer));
  port.on("message", (messages: Message[]) => {
    for (const message of messages) {
      if ("abort" in message) {
        // A call that has finished already is answered, or about to be.
        if (running.has(message.abort)) aborted.add(message.abort);
        continue;
      }
      const { id, op, args } = message;
      running.add(id);
      const step = () => {
        if (aborted.has(id)) throw new Error("The deadline passed.");
      };
      (work[op] as (args: unknown, step: () => void) => Promise<unknown>)(args, step).then(
        (value) => {
          running.delete(id);
          aborted.delete(id);
          const bytes = (value as { bytes?: Uint8Array } | null)?.bytes;
          const whole = bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
          outbox.push({ id, value }, whole ? [bytes.buffer as ArrayBuffer] : []);
        },
        (error: NodeJS.ErrnoException) => {
          running.delete(id);
          aborted.delete(id);
          outbox.push({
            id,
            error: { name: error.name, message: error.message, ...(error.code ? { code: error.code } : {}) },
          });
        },
      );
    }
  });
}
