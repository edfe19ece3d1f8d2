import { existsSync, statSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { INBOX_ROUTES, type RouteFile, routeFileText, SITE_ROUTES } from "./routes";

export interface InitOptions {
  /** The project's folder (where its package.json is). */
  cwd: string;
  stdout: NodeJS.WritableStream;
  /** Also the inbox on the web: its pages, its routes and the proxy (`--inbox`). */
  inbox?: boolean;
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
 * The page and route files under `appDir`, by the URL path each answers: route groups (`(site)`)
 * are not part of it, so a page the site keeps in a group still counts as there.
 */
export async function filesByUrl(cwd: string, appDir: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const entries = await readdir(path.join(cwd, appDir), { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !/^(page|route)\.(ts|tsx|js|jsx|mjs)$/.test(entry.name)) continue;
    const file = path.relative(cwd, path.join(entry.parentPath, entry.name));
    found.set(urlOf(path.relative(path.join(cwd, appDir), entry.parentPath)), file);
  }
  return found;
}

function urlOf(folder: string): string {
  const segments = folder.split(path.sep).filter((segment) => segment !== "" && !/^\(.*\)$/.test(segment));
  return `/${segments.join("/")}`;
}

/**
 * Writes the route files the package's handlers need, each only where the site answers nothing
 * yet: a page or route already at that URL is the site's own (or an earlier run's), never
 * overwritten, so running it twice is harmless.
 */
export async function init({ cwd, stdout, inbox = false }: InitOptions): Promise<InitResult> {
  const appDir = findAppDir(cwd);
  if (appDir === null)
    throw new Error("No app/ or src/app/ folder here: run it in a Next.js App Router project.");
  const existing = await filesByUrl(cwd, appDir);
  // A site without TypeScript gets JavaScript files: Next would otherwise stop its build to ask
  // for TypeScript. The re-exports read the same in both.
  const typescript = existsSync(path.join(cwd, "tsconfig.json"));
  const written: string[] = [];
  const skipped: string[] = [];
  /** The site's own proxy (or middleware), found where `init --inbox` would write one. */
  let ownProxy: string | undefined;
  for (const route of inbox ? [...SITE_ROUTES, ...INBOX_ROUTES] : SITE_ROUTES) {
    const folder = route.besideApp ? path.dirname(appDir) : appDir;
    const relative = path.join(folder, typescript ? route.path : route.path.replace(/\.ts(x?)$/, ".js$1"));
    const full = path.join(cwd, relative);
    const there = /^(page|route)\./.test(path.basename(route.path))
      ? existing.get(urlOf(path.dirname(route.path)))
      : sameFileAnyExtension(cwd, folder, route);
    if (there !== undefined) {
      skipped.push(there);
      if (route.proxyMatcher) ownProxy = there;
      continue;
    }
    await mkdir(path.dirname(full), { recursive: true });
    // `wx`: a file that appeared since the look is still not overwritten.
    await writeFile(full, routeFileText(route), { flag: "wx" });
    written.push(relative);
  }
  stdout.write(report({ appDir, written, skipped }, inbox, ownProxy));
  return { appDir, written, skipped };
}

/**
 * The site's own file in the place of `route` (a layout, or a file beside the app folder), in any
 * of the extensions Next reads; for the proxy, its older name `middleware` too (Next refuses a
 * site with both).
 */
function sameFileAnyExtension(cwd: string, folder: string, route: RouteFile): string | undefined {
  const base = path.join(path.dirname(route.path), path.basename(route.path, path.extname(route.path)));
  const names = base === "proxy" ? ["proxy", "middleware"] : [base];
  for (const name of names) {
    for (const extension of [".ts", ".js", ".mjs", ".tsx", ".jsx"]) {
      const relative = path.join(folder, `${name}${extension}`);
      if (existsSync(path.join(cwd, relative))) return relative;
    }
  }
  return undefined;
}

function report({ written, skipped }: InitResult, inbox: boolean, ownProxy: string | undefined): string {
  const lines: string[] = [];
  if (written.length > 0) lines.push("Wrote:", ...written.map((file) => `  ${file}`));
  if (skipped.length > 0)
    lines.push("Skipped (already there, left as they are):", ...skipped.map((file) => `  ${file}`));
  if (ownProxy !== undefined)
    lines.push(
      "",
      `${ownProxy} is the site's own: for the inbox pages' Content Security Policy, return`,
      '  proxy(request) from "studio-intake/next/proxy" for the paths under /inbox',
      "(docs/adopting.md in the package shows how).",
    );
  lines.push(
    "",
    "Set in the environment (or .env.local) for briefs to reach you by email:",
    "  SMTP_URL=smtps://<user>:<password>@<mail server>:465",
    "  EMAIL_FROM=Studio Intake <intake@your.site>",
    "  EMAIL_TO=ops@your.site",
    "and the name the emails and the inbox give your site (unset: Northwind Studio, the package's own site):",
    "  SITE_NAME=Your Site",
    "and in production:",
    "  SITE_URL=https://your.site",
    "  IP_HASH_SALT=<a long random string>",
    "  BLOB_READ_WRITE_TOKEN=<a private Vercel Blob store's token, when more than one instance runs>",
    ...(inbox
      ? [
          "and for the inbox on the web (signing in by an emailed link):",
          "  OPS_EMAILS=you@your.site,colleague@your.site",
          "  LINK_SIGNING_SECRET=<another long random string, at least 32 characters>",
        ]
      : []),
    "Every variable is in node_modules/studio-intake/.env.example and docs/configuration.md.",
    "",
  );
  return lines.join("\n");
}
