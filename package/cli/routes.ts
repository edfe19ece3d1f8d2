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
  /** The proxy: its `config` (the paths it runs on), which Next reads from the file itself. */
  proxyMatcher?: true;
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
 * pages the emailed newsletter links and a form sent without JavaScript lead to (the thank-you,
 * or the form again, saying what was wrong).
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
  page("contact", "contact"),
  page("newsletter", "newsletter"),
  page("newsletter/confirm", "newsletter-confirm"),
  page("newsletter/unsubscribe", "newsletter-unsubscribe"),
  page("thank-you", "thank-you"),
  // Checks the configuration as the server starts, and runs a long-lived server's own jobs.
  { path: "instrumentation.ts", besideApp: true, module: "next/instrumentation", names: ["register"] },
];

const inboxPage = (path: string, name: string): RouteFile => ({
  path: `${path}/page.tsx`,
  module: `next/inbox/${name}`,
  names: ["default"],
  dynamic: true,
});

const inboxRoute = (path: string, name: string, names: string[]): RouteFile => ({
  path: `${path}/route.ts`,
  module: `next/${name}`,
  names,
});

/**
 * `init --inbox`: the inbox on the web, its pages under `/inbox` and the routes its forms and
 * scripts post to under `/api/ops`; and the proxy that gives each inbox page its Content Security
 * Policy with a fresh nonce (Next reads the proxy's `matcher` from the file itself).
 */
export const INBOX_ROUTES: readonly RouteFile[] = [
  { path: "inbox/layout.tsx", module: "next/inbox/layout", names: ["default", "metadata"] },
  inboxPage("inbox", "briefs"),
  inboxPage("inbox/spam", "spam"),
  inboxPage("inbox/subscribers", "subscribers"),
  inboxPage("inbox/audit", "audit"),
  inboxPage("inbox/erase", "erase"),
  inboxPage("inbox/sign-in", "sign-in"),
  inboxPage("inbox/sign-in/confirm", "sign-in-confirm"),
  inboxPage("inbox/[reference]", "brief"),
  inboxPage("inbox/[reference]/[...rest]", "not-found"),
  inboxRoute("inbox/[reference]/attachment", "inbox/attachment", ["GET"]),
  inboxRoute("inbox/export.csv", "inbox/export-briefs", ["GET"]),
  inboxRoute("inbox/subscribers/export.csv", "inbox/export-subscribers", ["GET"]),
  inboxRoute("inbox/person.json", "inbox/person-export", ["GET", "POST"]),
  inboxRoute("api/ops/sign-in", "ops/sign-in", ["GET", "POST"]),
  inboxRoute("api/ops/session", "ops/session", ["GET", "POST"]),
  inboxRoute("api/ops/sign-out", "ops/sign-out", ["GET", "POST"]),
  inboxRoute("api/ops/sign-out/everywhere", "ops/sign-out-everywhere", ["GET", "POST"]),
  inboxRoute("api/ops/briefs/[reference]/status", "ops/status", ["GET", "POST"]),
  inboxRoute("api/ops/briefs/[reference]/notes", "ops/notes", ["GET", "POST"]),
  inboxRoute("api/ops/briefs/[reference]/not-spam", "ops/not-spam", ["GET", "POST"]),
  inboxRoute("api/ops/briefs/[reference]/redeliver", "ops/redeliver", ["GET", "POST"]),
  inboxRoute("api/ops/erase", "ops/erase", ["GET", "POST"]),
  inboxRoute("api/ops/[...path]", "ops/unknown", ["GET", "POST"]),
  { path: "proxy.ts", besideApp: true, module: "next/proxy", names: ["proxy"], proxyMatcher: true },
];

/** The file's text: the re-export, and the segment config Next needs to see in the file itself. */
export function routeFileText({ module, names, dynamic, proxyMatcher }: RouteFile): string {
  const reexport = `export { ${names.join(", ")} } from "studio-intake/${module}";\n`;
  if (proxyMatcher) return `${reexport}${PROXY_CONFIG}`;
  return dynamic ? `${reexport}export const dynamic = "force-dynamic";\n` : reexport;
}

/**
 * Every page (where HSTS goes on when SITE_URL is https, and the inbox's pages get their
 * policy), never the API: a proxy in front of a route buffers its request body and cuts it at
 * 10 MB before the route's own size checks see it.
 */
const PROXY_CONFIG = `export const config = {
  matcher: ["/((?!api/|_next/static|_next/image).*)"],
};
`;
