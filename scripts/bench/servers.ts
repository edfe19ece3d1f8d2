import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { blobEnv } from "../../tests/support/blob-app";
import type { BlobStandIn } from "../../tests/support/blob-standin";
import { type AppServer, startApp, tempDir } from "../../tests/support/server";
import type { SiteverifyStandIn } from "../../tests/support/siteverify-standin";
import type { SmtpTestServer } from "../../tests/support/smtp";
import { listeningPid } from "./proc";

/** The servers the bench measures: `next start` on the build, in four configurations. */

/** Embedded defaults, except limits high enough never to answer 429 during a run. */
const SERVER_ENV = {
  CONTACT_RATE_LIMIT: "999999999/1h",
  NEWSLETTER_RATE_LIMIT: "999999999/1h",
  IP_HASH_SALT: "bench",
};

/** Builds the app first when asked to (`--build`) or when there is no build yet. */
export function ensureBuild(build: boolean): void {
  if (!build && existsSync(".next/BUILD_ID")) return;
  console.log(build ? "Building (--build)..." : "No build found (.next/BUILD_ID): building...");
  const result = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: "inherit",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/**
 * Which server a scenario runs against: the embedded defaults, the same with the default rate
 * limits, the Blob inbox, or the embedded defaults with part 2's features on (Turnstile, the
 * acknowledgment, double opt-in: see `featureEnv`).
 */
export type ServerKind = "filesystem" | "limited" | "blob" | "features";

export const TURNSTILE_SECRET = "bench-turnstile-secret";

/**
 * Part 2's features, all on: Turnstile checked against the siteverify stand-in, and the two emails
 * to visitors (each brief's acknowledgment, each new subscriber's confirmation) sent through SMTP
 * to a real SMTP server, both running in this process.
 */
export function featureEnv(siteverify: SiteverifyStandIn, smtp: SmtpTestServer): Record<string, string> {
  return {
    TURNSTILE_SECRET_KEY: TURNSTILE_SECRET,
    TURNSTILE_SITE_KEY: "bench-turnstile-site-key",
    TURNSTILE_VERIFY_URL: siteverify.url,
    SMTP_URL: smtp.url,
    EMAIL_FROM: "Northwind Studio <intake@studio.example>",
    CONTACT_ACKNOWLEDGE: "true",
    NEWSLETTER_DOUBLE_OPT_IN: "true",
    LINK_SIGNING_SECRET: "bench-link-signing-secret-of-at-least-32-characters",
  };
}

/** A running server the throughput scenarios use, with the pid whose CPU time is read. */
export interface MeasuredServer {
  app: AppServer;
  pid: number;
  /** Its filesystem inbox (none for the Blob inbox). */
  inbox: string | null;
}

/** The stand-ins every server of a run shares, and the inboxes made for them (removed at the end). */
export interface BenchSurroundings {
  standIn: BlobStandIn;
  siteverify: SiteverifyStandIn;
  smtp: SmtpTestServer;
  inboxes: string[];
}

/** A fresh server of `kind`, with the pid that holds its listening socket. */
export async function startServer(kind: ServerKind, around: BenchSurroundings): Promise<MeasuredServer> {
  const { standIn, siteverify, smtp, inboxes } = around;
  const inbox = await tempDir("intake-bench-");
  inboxes.push(inbox);
  const env: Record<string, string> =
    kind === "blob"
      ? { ...SERVER_ENV, ...blobEnv(standIn.token, standIn.origin) }
      : kind === "limited"
        ? { IP_HASH_SALT: SERVER_ENV.IP_HASH_SALT, INBOX_DIR: inbox }
        : kind === "features"
          ? { ...SERVER_ENV, INBOX_DIR: inbox, ...featureEnv(siteverify, smtp) }
          : { ...SERVER_ENV, INBOX_DIR: inbox };
  const app = await startApp(env);
  return { app, pid: await listeningPid(app.pid, app.port), inbox: kind === "blob" ? null : inbox };
}
