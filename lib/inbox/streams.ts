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
