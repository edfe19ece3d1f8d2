import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { blobEnv } from "../support/blob-app";
import { startBlobStandIn } from "../support/blob-standin";
import { selfSignedCertificate } from "../support/tls";
import { E2E_BLOB_TOKEN } from "./env";

export interface BlobAppOptions {
  /** Where `next start` listens (on 127.0.0.1). */
  appPort: number;
  /** Where the stand-in answers the browser as `https://vercel.com`. */
  apiPort: number;
  /** Where the stand-in's address is written, for the tests to look inside. */
  stateFile: string;
  /** More variables for the app. */
  env?: Record<string, string>;
  /** Called when the app and the stand-in have stopped. */
  onStop?: () => Promise<void>;
}

/**
 * A Blob stand-in and `next start` with the Vercel Blob inbox on it, as the integration tests run
 * the app (the real SDK, VERCEL_BLOB_API_URL, the loopback-only preload). The stand-in also answers
 * the browser as `https://vercel.com` (HTTP/2, a throwaway certificate) on `apiPort`. Stops both,
 * and exits, when this process is stopped or the app exits. Test code only.
 */
export async function serveAppOnBlob(options: BlobAppOptions): Promise<void> {
  const standIn = await startBlobStandIn({
    token: E2E_BLOB_TOKEN,
    browser: { port: options.apiPort, ...(await selfSignedCertificate("vercel.com")) },
  });
  await mkdir(dirname(options.stateFile), { recursive: true });
  await writeFile(options.stateFile, JSON.stringify({ origin: standIn.origin, apiUrl: standIn.apiUrl }));

  const app = spawn(
    process.execPath,
    [
      "node_modules/next/dist/bin/next",
      "start",
      "--port",
      String(options.appPort),
      "--hostname",
      "127.0.0.1",
    ],
    {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        SITE_URL: `http://127.0.0.1:${options.appPort}`,
        IP_HASH_SALT: "e2e",
        ...blobEnv(E2E_BLOB_TOKEN, standIn.origin),
        ...options.env,
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
      await options.onStop?.();
    }
    process.exit(code);
  };
  app.once("exit", (code) => void stop(code ?? 1));
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void stop(0));
}
