/** The parts of busboy's internals (and of streamsearch, its delimiter search) that `part-charsets.ts` reuses; neither ships types for them. */
declare module "busboy/lib/utils.js" {
  export type ParamDecoder = (data: string | Buffer, hint: number) => string | undefined;

  export interface ContentType {
    type: string;
    subtype: string;
    /** Parameter names lowercased; quoted values unquoted. */
    params: Record<string, string>;
  }

  export function parseContentType(value: string): ContentType | undefined;
  export function parseDisposition(
    value: string,
    decoder: ParamDecoder,
  ): { type: string; params: Record<string, string> } | undefined;
  export function getDecoder(charset: string): ParamDecoder;
}

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
    push(chunk: Buffer, pos?: number): number;
    /** Hands the bytes it still holds (a possible start of the needle) to the callback. */
    destroy(): void;
  }

  export = StreamSearch;
}
