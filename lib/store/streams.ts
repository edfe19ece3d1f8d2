import { ObjectTooLargeError } from "./types";

/**
 * `stream` passed through unchanged until more than `maxBytes` have gone by: then it errors with
 * `ObjectTooLargeError` and the source is cancelled, so an object that is not the size it claims
 * is never read past the bound.
 */
export function limitStream(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  path: string,
): ReadableStream<Uint8Array> {
  let counted = 0;
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        counted += chunk.byteLength;
        if (counted > maxBytes) controller.error(new ObjectTooLargeError(path, counted, maxBytes));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * A request body for `fetch` that is sent once and never copied. `fetch` (undici's, which
 * @vercel/blob calls, as Node's own does) clones each request it sends in case it must follow a
 * redirect, and cloning tees the body: the wire reads one branch, the original request keeps the
 * other, and the tee queues every chunk for that branch until the request is answered, so a
 * streamed upload ends up whole in memory however slowly it is read (nodejs/undici#4058). Nothing
 * ever reads that branch: fetch never re-sends a body without a source (any stream): a redirect is a
 * network error instead (a 303 drops the body), and only bodies it can rebuild from their source are
 * sent again after a 421. So `tee` here hands the wire this stream itself and the original request
 * a branch that fails if it is ever read, not a copy.
 */
export class SendOnceStream<T> extends ReadableStream<T> {
  override tee(): [ReadableStream<T>, ReadableStream<T>] {
    const neverSent = new ReadableStream<T>(
      {
        pull(controller) {
          controller.error(new TypeError("A body streamed once cannot be read again."));
        },
      },
      { highWaterMark: 0 },
    );
    return [neverSent, this];
  }
}
