import type * as VercelBlobSdk from "@vercel/blob";

/**
 * `@vercel/blob`, loaded by the Blob inbox's first call rather than with the routes: a server on the
 * filesystem inbox never loads it, and a cold start on the Blob inbox pays for it only once a
 * request reaches the store.
 */
export type VercelBlob = typeof VercelBlobSdk;

let loading: Promise<VercelBlob> | undefined;
let loaded: VercelBlob | null = null;

export function loadVercelBlob(): Promise<VercelBlob> {
  loading ??= import("@vercel/blob").then(
    (sdk) => (loaded = sdk),
    (error: unknown) => {
      loading = undefined; // a failed load is tried again by the next call
      throw error;
    },
  );
  return loading;
}

/**
 * The SDK once a call has loaded it: its error classes are asked about only about an error a call
 * threw, so `null` here means the error did not come from the SDK.
 */
export function loadedVercelBlob(): VercelBlob | null {
  return loaded;
}
