/**
 * What the public routes read of a request: its headers, its URL and its body, chunk by chunk. A
 * web `Request` (an App Router route handler's) is one; so is a Node request seen through
 * `nodePost` (lib/http/node-post.ts), which the two busiest routes use.
 */
export interface IncomingRequest {
  readonly headers: RequestHeaders;
  readonly url: string;
  readonly body: { getReader(): BodyReader } | null;
}

/** The part of a `ReadableStreamDefaultReader` the body readers use. */
export interface BodyReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  /** Stops reading: whatever the client still sends is not kept. */
  cancel(): Promise<void>;
}

/** A request's headers as the routes read them: by name, repeated values joined with ", ". */
export type RequestHeaders = Pick<Headers, "get">;
