import type * as VercelBlobSdk from "@vercel/blob";
import { loadOnce } from "../load-once";

/**
 * `@vercel/blob`, loaded by the Blob inbox's first call rather than with the routes: a server on the
 * filesystem inbox never loads it, and a cold start on the Blob inbox pays for it only once a
 * request reaches the store.
 */
export type VercelBlob = typeof VercelBlobSdk;

let loaded: VercelBlob | null = null;

export const loadVercelBlob: () => Promise<VercelBlob> = loadOnce(() =>
  import("@vercel/blob").then((sdk) => (loaded = sdk)),
);

/**
 * The SDK once a call has loaded it: its error classes are asked about only about an error a call
 * threw, so `null` here means the error did not come from the SDK.
 */
export function loadedVercelBlob(): VercelBlob | null {
  return loaded;
}
