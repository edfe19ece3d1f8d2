/**
 * Playwright's third web server: the Blob inbox app (as blob-server.ts) with human verification
 * on, its siteverify a stand-in on loopback (tests/support/siteverify-standin.ts). The browser gets
 * a fake of Cloudflare's widget script from the tests themselves (turnstile.spec.ts), whose tokens
 * tell the stand-in how to answer. Blob, so both of the contact form's token paths run: a brief
 * alone, and a file uploaded ahead of it with a token of its own. Test code only.
 */
import { startSiteverifyStandIn } from "../support/siteverify-standin";
import { serveAppOnBlob } from "./blob-app-server";
import {
  E2E_TURNSTILE_API_PORT,
  E2E_TURNSTILE_PORT,
  E2E_TURNSTILE_SECRET,
  E2E_TURNSTILE_SITE_KEY,
  E2E_TURNSTILE_STATE,
} from "./env";

async function main(): Promise<void> {
  const siteverify = await startSiteverifyStandIn({ secret: E2E_TURNSTILE_SECRET, hostname: "127.0.0.1" });
  await serveAppOnBlob({
    appPort: E2E_TURNSTILE_PORT,
    apiPort: E2E_TURNSTILE_API_PORT,
    stateFile: E2E_TURNSTILE_STATE,
    env: {
      TURNSTILE_SECRET_KEY: E2E_TURNSTILE_SECRET,
      TURNSTILE_SITE_KEY: E2E_TURNSTILE_SITE_KEY,
      TURNSTILE_VERIFY_URL: siteverify.url,
      EMAIL_REPLY_TO: "Northwind Studio <hello@studio.example>",
    },
    onStop: () => siteverify.stop(),
  });
}

void main();
