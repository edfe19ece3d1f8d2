/**
 * Playwright's second web server: `next start` with the Vercel Blob inbox on a stand-in (see
 * blob-app-server.ts), for the form's uploads ahead of itself. Test code only.
 */
import { serveAppOnBlob } from "./blob-app-server";
import { E2E_BLOB_API_PORT, E2E_BLOB_PORT, E2E_BLOB_STATE } from "./env";

void serveAppOnBlob({ appPort: E2E_BLOB_PORT, apiPort: E2E_BLOB_API_PORT, stateFile: E2E_BLOB_STATE });
