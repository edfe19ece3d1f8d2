/**
 * The files `studio-intake init` writes into an App Router project, each by its path under `app/`
 * (or `src/app/`). This site's own route files and link pages are these, byte for byte
 * (tests/unit/init.test.ts).
 */

/** A route or page file that re-exports what the package's module of that name exports. */
export interface RouteFile {
  /** Under the `app/` folder; beside it (in the project's root or `src/`) with `besideApp`. */
  path: string;
  besideApp?: true;
  /** The package's module, `studio-intake/<module>`. */
  module: string;
  /** What the file re-exports: HTTP methods for a route; `default` and `metadata` for a page. */
  names: readonly string[];
  /**
   * Rendered per request even where Next could prerender it at build (a GET that reads no request):
   * route segment config is read only from the route file itself, never through a re-export.
   */
  dynamic?: true;
}

const route = (path: string, handler: string, names: string[], dynamic?: true): RouteFile => ({
  path: `api/${path}/route.ts`,
  module: `next/${handler}`,
  names,
  ...(dynamic ? { dynamic } : {}),
});

const page = (path: string, name: string): RouteFile => ({
  path: `${path}/page.tsx`,
  module: `next/pages/${name}`,
  names: ["default", "metadata"],
});

/**
 * What a site needs for the forms, their emailed links, the scheduled jobs and health; and the
 * pages the emailed newsletter links and a brief sent without JavaScript lead to.
 */
export const SITE_ROUTES: readonly RouteFile[] = [
  route("contact", "contact", ["POST"]),
  route("contact/upload", "contact-upload", ["POST"]),
  route("form-settings", "form-settings", ["GET"], true),
  route("newsletter", "newsletter", ["POST"]),
  route("newsletter/confirm", "newsletter-confirm", ["POST"]),
  route("newsletter/unsubscribe", "newsletter-unsubscribe", ["GET", "POST"]),
  route("health", "health", ["GET"], true),
  route("cron/deliveries", "cron-deliveries", ["GET"], true),
  route("cron/gc", "cron-gc", ["GET"], true),
  route("deliveries/retry", "deliveries-retry", ["POST"], true),
  page("newsletter/confirm", "newsletter-confirm"),
  page("newsletter/unsubscribe", "newsletter-unsubscribe"),
  page("thank-you", "thank-you"),
  // Checks the configuration as the server starts, and runs a long-lived server's own jobs.
  { path: "instrumentation.ts", besideApp: true, module: "next/instrumentation", names: ["register"] },
];

/** The file's text: the re-export, and the segment config Next needs to see in the file itself. */
export function routeFileText({ module, names, dynamic }: RouteFile): string {
  const reexport = `export { ${names.join(", ")} } from "studio-intake/${module}";\n`;
  return dynamic ? `${reexport}export const dynamic = "force-dynamic";\n` : reexport;
}
