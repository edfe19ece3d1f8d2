// Loaded into `next start` with NODE_OPTIONS=--import by tests that run the app against the Blob
// stand-in: the SDK reads private blobs from *.blob.vercel-storage.com, which must reach the
// stand-in instead (and nothing may leave loopback). Test code only; the app never imports it.
import { routeBlobStorageTo } from "./blob-routing.mjs";

const origin = process.env.TEST_BLOB_STANDIN_ORIGIN;
if (!origin) throw new Error("blob-preload.mjs needs TEST_BLOB_STANDIN_ORIGIN");
routeBlobStorageTo(origin);
