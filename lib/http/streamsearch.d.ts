/** streamsearch (busboy's delimiter search, used by `part-charsets.ts` through its documented API) has no types of its own. */
declare module "streamsearch" {
  /** Called with the bytes before each match (or before the end of what was pushed), then whether a match follows. */
  type Callback = (
    isMatch: boolean,
    data: Buffer | undefined,
    start: number,
    end: number,
    /** `false` when `data` is an internal buffer that is reused: copy what you keep. */
    isDataSafe: boolean,
  ) => void;

  class StreamSearch {
    constructor(needle: string | Buffer, callback: Callback);
    push(chunk: Buffer): number;
    /** Hands the bytes it still holds (a possible start of the needle) to the callback. */
    destroy(): void;
  }

  export = StreamSearch;
}
