import { resolve } from "node:path";

const PRELOAD = resolve("tests/support/blob-preload.mjs");

/**
 * The environment for `next start` with the Vercel Blob inbox at `apiOrigin` (the stand-in, or a
 * port nobody listens on): the real SDK finds the API through VERCEL_BLOB_API_URL, and the test
 * preload routes its private reads there and keeps everything on loopback.
 */
export function blobEnv(token: string, apiOrigin: string): Record<string, string> {
  return {
    BLOB_READ_WRITE_TOKEN: token,
    VERCEL_BLOB_API_URL: `${apiOrigin}/api/blob`,
    TEST_BLOB_STANDIN_ORIGIN: apiOrigin,
    NODE_OPTIONS: `--import ${PRELOAD}`,
  };
}
