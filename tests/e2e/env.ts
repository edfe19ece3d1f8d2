import { resolve } from "node:path";

/** The app the browser tests run against: one `next start` with its own inbox. */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3217);
export const E2E_URL = `http://127.0.0.1:${E2E_PORT}`;
export const E2E_INBOX = resolve(".data/e2e/inbox");

/**
 * The second app, with the Vercel Blob inbox: `next start` beside a Blob stand-in (see
 * blob-server.ts), for the form's uploads ahead of itself. The stand-in serves the app on a free
 * port (written to `E2E_BLOB_STATE`) and the browser, as `https://vercel.com`, on
 * `E2E_BLOB_API_PORT`: the browser resolves vercel.com there and nowhere else.
 */
export const E2E_BLOB_PORT = Number(process.env.E2E_BLOB_PORT ?? E2E_PORT + 1000);
export const E2E_BLOB_API_PORT = Number(process.env.E2E_BLOB_API_PORT ?? E2E_PORT + 1001);
export const E2E_BLOB_URL = `http://127.0.0.1:${E2E_BLOB_PORT}`;
export const E2E_BLOB_TOKEN = "vercel_blob_rw_e2estore_0123456789abcdefghijklmn";
export const E2E_BLOB_STATE = resolve(".data/e2e/blob-standin.json");

/**
 * The third app: the Blob inbox (as the second) with human verification on, checking tokens with
 * a siteverify stand-in (see turnstile-server.ts). The browser, as `https://vercel.com`, reaches
 * its own Blob stand-in on `E2E_TURNSTILE_API_PORT`.
 */
export const E2E_TURNSTILE_PORT = Number(process.env.E2E_TURNSTILE_PORT ?? E2E_PORT + 2000);
export const E2E_TURNSTILE_API_PORT = Number(process.env.E2E_TURNSTILE_API_PORT ?? E2E_PORT + 2001);
export const E2E_TURNSTILE_URL = `http://127.0.0.1:${E2E_TURNSTILE_PORT}`;
export const E2E_TURNSTILE_STATE = resolve(".data/e2e/turnstile-blob-standin.json");
export const E2E_TURNSTILE_SITE_KEY = "0x4AAAAAAA-e2e-site-key";
export const E2E_TURNSTILE_SECRET = "0x4AAAAAAA-e2e-secret";
