import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Frees the memory of body chunks already used, sooner than V8 would on its own.
 *
 * Node gives each chunk of a request body a buffer of its own, outside V8's heap, and the Blob
 * store reads an upload's file back in chunks of 64 KiB to send it. Once used (hashed and written
 * to the upload's file; sent), a chunk is garbage, but its memory is freed only when V8 next
 * collects its young generation, and V8 starts a collection for such buffers only once some 32 MiB
 * of them have built up. So a burst of uploads held up to 32 MiB of spent chunks on top of the
 * ones in flight, and a server that went quiet after a burst kept all of them until its next busy
 * moment: the next burst then grew the process by as much again before they were freed
 * (docs/performance.md, "Sixth session: the spent bodies of a burst").
 *
 * `SpentBuffers` counts the chunks' bytes and runs a young-generation collection (a scavenge: a
 * few milliseconds, nothing like a full collection) after every `stepBytes` of them, and once
 * more when no body has ended for `quietMs` after at least `quietBytes`. Forms without a file
 * rarely add up to a step: the routes' ordinary traffic never waits on one. The memory freed stays
 * with the process, where the next chunks reuse it.
 */
export class SpentBuffers {
  private spent = 0;
  private soon = false;
  private quiet: NodeJS.Timeout | null = null;

  constructor(
    private readonly options: {
      /** Runs the collection. */
      collect: () => void;
      /** Bytes since the last collection that start one (on the next turn of the loop). */
      stepBytes: number;
      /** Bytes since the last collection that make one worth running once quiet. */
      quietBytes: number;
      /** How long no body has ended before that collection runs. */
      quietMs: number;
    },
  ) {}

  /** Notes a chunk of a body, read (a request's) or sent (a file's). */
  chunkRead(bytes: number): void {
    this.spent += bytes;
    if (this.spent < this.options.stepBytes || this.soon) return;
    this.soon = true;
    setImmediate(() => this.collectNow());
  }

  /** Notes a body finished: read or sent to its end, or broken off. */
  bodyEnded(): void {
    if (this.spent < this.options.quietBytes) return;
    if (this.quiet !== null) {
      this.quiet.refresh();
      return;
    }
    this.quiet = setTimeout(() => this.collectNow(), this.options.quietMs);
    this.quiet.unref();
  }

  private collectNow(): void {
    this.soon = false;
    this.spent = 0;
    if (this.quiet !== null) clearTimeout(this.quiet);
    this.quiet = null;
    this.options.collect();
  }
}

/** V8's `gc`: with no argument a full collection, with `{ type: "minor" }` a young-generation one. */
export type V8Collector = (options?: { type: "minor" }) => void;

let collector: V8Collector | null | undefined;

/**
 * V8's `gc`, without starting Node with `--expose-gc`: the flag exposes `gc` to contexts made
 * while it is set, so one is made, `gc` taken from it, and the flag put back. Taken on first use,
 * once; `null` where that is not possible.
 */
export function v8Collector(): V8Collector | null {
  if (collector === undefined) {
    let gc: unknown = null;
    try {
      setFlagsFromString("--expose-gc");
      try {
        gc = runInNewContext("gc");
      } finally {
        setFlagsFromString("--no-expose-gc");
      }
    } catch {
      gc = null;
    }
    collector = typeof gc === "function" ? (gc as V8Collector) : null;
  }
  return collector;
}

/**
 * V8's young-generation collection. Where `gc` cannot be had, nothing: spent bodies are then freed
 * when V8 chooses, as before.
 */
export function collectYoungGeneration(): void {
  v8Collector()?.({ type: "minor" });
}

/** The request bodies read through `nodePost`, and the files the Blob store sends. */
export const spentBuffers = new SpentBuffers({
  collect: collectYoungGeneration,
  stepBytes: 8 * 1024 * 1024,
  quietBytes: 1024 * 1024,
  quietMs: 250,
});
