/**
 * The files `studio-intake init` writes into an App Router project, each by its path under `app/`
 * (or `src/app/`). This site's own route files are these, byte for byte (tests/unit/init.test.ts).
 */

/** A route file that hands every request to the package's handler of that name. */
export interface RouteFile {
  /** Under the `app/` folder. */
  path: string;
  /** The handler module, `studio-intake/next/<handler>`. */
  handler: string;
  /** The HTTP methods the module exports. */
  methods: readonly ("GET" | "POST")[];
  /**
   * Rendered per request even where Next could prerender it at build (a GET that reads no request):
   * route segment config is read only from the route file itself, never through a re-export.
   */
  dynamic?: true;
}

/** What a site needs for the forms, their emailed links, the scheduled jobs and health. */
export const SITE_ROUTES: readonly RouteFile[] = [
  { path: "api/contact/route.ts", handler: "contact", methods: ["POST"] },
  { path: "api/contact/upload/route.ts", handler: "contact-upload", methods: ["POST"] },
  { path: "api/form-settings/route.ts", handler: "form-settings", methods: ["GET"], dynamic: true },
  { path: "api/newsletter/route.ts", handler: "newsletter", methods: ["POST"] },
  { path: "api/newsletter/confirm/route.ts", handler: "newsletter-confirm", methods: ["POST"] },
  {
    path: "api/newsletter/unsubscribe/route.ts",
    handler: "newsletter-unsubscribe",
    methods: ["GET", "POST"],
  },
  { path: "api/health/route.ts", handler: "health", methods: ["GET"], dynamic: true },
  { path: "api/cron/deliveries/route.ts", handler: "cron-deliveries", methods: ["GET"], dynamic: true },
  { path: "api/cron/gc/route.ts", handler: "cron-gc", methods: ["GET"], dynamic: true },
  { path: "api/deliveries/retry/route.ts", handler: "deliveries-retry", methods: ["POST"], dynamic: true },
];

/** The file's text: the re-export, and the segment config Next needs to see in the file itself. */
export function routeFileText({ handler, methods, dynamic }: RouteFile): string {
  const reexport = `export { ${methods.join(", ")} } from "studio-intake/next/${handler}";\n`;
  return dynamic ? `${reexport}export const dynamic = "force-dynamic";\n` : reexport;
}
