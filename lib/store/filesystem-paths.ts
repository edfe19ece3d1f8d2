import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";

/*
 * The hidden names the filesystem inbox keeps beside its objects, the deadline check between its
 * system calls, and the errno test its parts share.
 */

/** Files being written are hidden under this prefix until they are renamed into place. */
export const TEMP_PREFIX = ".tmp-";

/** Uploads in progress: hidden files at the inbox's root (`list` skips them), renamed into place. */
export const UPLOAD_PREFIX = `${TEMP_PREFIX}upload-`;

/** Throws once the caller's deadline has passed: called between system calls. */
export type Step = () => void;

/** A hidden temporary name beside `target`, in its folder. */
export function tempPath(target: string): string {
  return join(dirname(target), `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
}

/** Whether `error` is a system error with this `code` (`ENOENT`, `EEXIST`, ...). */
export function isCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
