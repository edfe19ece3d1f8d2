/**
 * Playwright's second web server: a Blob stand-in and `next start` with the Vercel Blob inbox on
 * it, as the integration tests run the app (the real SDK, VERCEL_BLOB_API_URL, the loopback-only
 * preload). The stand-in also answers the browser as `https://vercel.com` (HTTP/2, a throwaway
 * certificate) on `E2E_BLOB_API_PORT`. Writes where it serves the app to `E2E_BLOB_STATE`, for the
 * tests to look inside. Stops both when it is stopped. Test code only.
 */
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { blobEnv } from "../support/blob-app";
import { startBlobStandIn } from "../support/blob-standin";
import { selfSignedCertificate } from "../support/tls";
import { E2E_BLOB_API_PORT, E2E_BLOB_PORT, E2E_BLOB_STATE, E2E_BLOB_TOKEN, E2E_BLOB_URL } from "./env";

async function main(): Promise<void> {
  const standIn = await startBlobStandIn({
    token: E2E_BLOB_TOKEN,
    browser: { port: E2E_BLOB_API_PORT, ...(await selfSignedCertificate("vercel.com")) },
  });
  await mkdir(dirname(E2E_BLOB_STATE), { recursive: true });
  await writeFile(E2E_BLOB_STATE, JSON.stringify({ origin: standIn.origin, apiUrl: standIn.apiUrl }));

  const app = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "--port", String(E2E_BLOB_PORT), "--hostname", "127.0.0.1"],
    {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        SITE_URL: E2E_BLOB_URL,
        IP_HASH_SALT: "e2e",
        ...blobEnv(E2E_BLOB_TOKEN, standIn.origin),
      },
      stdio: "inherit",
    },
  );

  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (!stopping) {
      stopping = true;
      if (app.exitCode === null && app.signalCode === null) app.kill("SIGTERM");
      await standIn.close();
    }
    process.exit(code);
  };
  app.once("exit", (code) => void stop(code ?? 1));
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void stop(0));
}

void main();
