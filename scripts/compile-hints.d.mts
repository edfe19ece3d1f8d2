/** Types for `compile-hints.mjs` (plain JavaScript, run by `npm run build` with Node alone). */

/** V8's magic comment for "compile every function in this script eagerly". */
export declare const COMPILE_HINT: string;

/** `source` with the compile hint on its first line (as it is, when it has it already). */
export declare function withCompileHint(source: string): string;

/** Marks every `.js` file under `chunksDirectory`; resolves to how many files it changed. */
export declare function addCompileHints(chunksDirectory?: string): Promise<number>;
