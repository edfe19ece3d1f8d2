import { resolve } from "node:path";

/** The app the browser tests run against: one `next start` with its own inbox. */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3217);
export const E2E_URL = `http://127.0.0.1:${E2E_PORT}`;
export const E2E_INBOX = resolve(".data/e2e/inbox");
