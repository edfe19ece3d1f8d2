import { afterAll, beforeAll, beforeEach } from "vitest";
import { routeBlobStorageTo } from "./blob-routing.mjs";
import { type BlobStandIn, startBlobStandIn } from "./blob-standin";

/**
 * For a test file that uses the real @vercel/blob SDK in process: starts the Blob stand-in, points
 * the SDK at it (VERCEL_BLOB_API_URL for the API, a global dispatcher for private reads), empties it
 * and clears any fault before each test, and undoes all of it after the file. `ready` receives the
 * stand-in once it listens.
 */
export function withBlobStandIn(ready: (standIn: BlobStandIn) => void): void {
  let standIn: BlobStandIn | undefined;
  let restoreDispatcher: (() => void) | undefined;
  const savedApiUrl = process.env.VERCEL_BLOB_API_URL;

  beforeAll(async () => {
    standIn = await startBlobStandIn();
    process.env.VERCEL_BLOB_API_URL = standIn.apiUrl;
    restoreDispatcher = routeBlobStorageTo(standIn.origin);
    ready(standIn);
  });

  afterAll(async () => {
    restoreDispatcher?.();
    if (savedApiUrl === undefined) delete process.env.VERCEL_BLOB_API_URL;
    else process.env.VERCEL_BLOB_API_URL = savedApiUrl;
    await standIn?.close();
  });

  beforeEach(() => {
    if (!standIn) return;
    standIn.objects.clear();
    standIn.requests.length = 0;
    standIn.fault = null;
    standIn.maxPageSize = 1000;
  });
}
