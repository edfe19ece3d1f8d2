import { existsSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { routeFileText, SITE_ROUTES } from "./routes";

export interface InitOptions {
  /** The project's folder (where its package.json is). */
  cwd: string;
  inbox: boolean;
  stdout: NodeJS.WritableStream;
}

export interface InitResult {
  /** The App Router folder written into, relative to `cwd`. */
  appDir: string;
  /** Paths relative to `cwd`. */
  written: string[];
  skipped: string[];
}

/** The App Router folder: `app/`, else `src/app/` (the order Next itself looks in). */
export function findAppDir(cwd: string): string | null {
  for (const candidate of ["app", path.join("src", "app")]) {
    const full = path.join(cwd, candidate);
    if (existsSync(full) && statSync(full).isDirectory()) return candidate;
  }
  return null;
}

/**
 * Writes the route files the package's handlers need, each only where no file is yet: a file that
 * exists is the site's own (or an earlier run's), never overwritten, so running it twice is
 * harmless.
 */
export async function init({ cwd, stdout }: InitOptions): Promise<InitResult> {
  const appDir = findAppDir(cwd);
  if (appDir === null)
    throw new Error("No app/ or src/app/ folder here: run it in a Next.js App Router project.");
  const written: string[] = [];
  const skipped: string[] = [];
  for (const route of SITE_ROUTES) {
    const relative = path.join(appDir, route.path);
    const full = path.join(cwd, relative);
    if (existsSync(full)) {
      skipped.push(relative);
      continue;
    }
    await mkdir(path.dirname(full), { recursive: true });
    // `wx`: a file that appeared since the check is still not overwritten.
    await writeFile(full, routeFileText(route), { flag: "wx" });
    written.push(relative);
  }
  stdout.write(report({ appDir, written, skipped }));
  return { appDir, written, skipped };
}

function report({ written, skipped }: InitResult): string {
  const lines: string[] = [];
  if (written.length > 0) lines.push("Wrote:", ...written.map((file) => `  ${file}`));
  if (skipped.length > 0)
    lines.push("Skipped (already there, left as they are):", ...skipped.map((file) => `  ${file}`));
  lines.push(
    "",
    "Set in the environment (or .env.local) for briefs to reach you by email:",
    "  SMTP_URL=smtps://<user>:<password>@<mail server>:465",
    "  EMAIL_FROM=Studio Intake <intake@your.site>",
    "  EMAIL_TO=ops@your.site",
    "and in production:",
    "  SITE_URL=https://your.site",
    "  IP_HASH_SALT=<a long random string>",
    "  BLOB_READ_WRITE_TOKEN=<a private Vercel Blob store's token, when more than one instance runs>",
    "Every variable is in node_modules/studio-intake/README.md and its .env.example.",
    "",
  );
  return lines.join("\n");
}
