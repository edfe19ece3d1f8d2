/**
 * The import rules (`npm run lint:deps`): arrows point down only. No cycles; `lib/` never reaches
 * up into the pages or their components; and the composition root (`lib/services.ts`, where the
 * drivers are chosen from config) is imported only at the edges that start work: the routes and
 * pages (and the package's route handlers in package/next/ they re-export), the command-line
 * scripts and package/cli/, the start-up, and the tests. A feature that needs a service takes it
 * as an argument instead.
 */

/** Where `lib/services.ts` may be imported from. */
const EDGES = [
  "^app/",
  "^package/(next|cli)/",
  "^scripts/",
  "^tests/",
  "^lib/startup\\.ts$",
  "^instrumentation\\.ts$",
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle: the modules in it cannot be read, tested or loaded one without the other.",
      from: {},
      to: { circular: true },
    },
    {
      name: "lib-not-to-app-or-components",
      severity: "error",
      comment: "lib/ is the work under the pages: it never imports a route, page or React component.",
      from: { path: "^lib/" },
      to: { path: "^(app|components)/" },
    },
    {
      name: "lib-not-to-composition-root",
      severity: "error",
      comment:
        "A feature in lib/ reached up for the composition root: take the service as an argument " +
        "(only lib/startup.ts, which runs at start, imports lib/services.ts).",
      from: { path: "^lib/", pathNot: "^lib/startup\\.ts$" },
      to: { path: "^lib/services\\.ts$" },
    },
    {
      name: "composition-root-at-the-edge",
      severity: "error",
      comment:
        "lib/services.ts is imported only by app/, package/next/, package/cli/, scripts/, lib/startup.ts, " +
        "instrumentation.ts and " +
        "the tests (components get what they need as props).",
      from: { pathNot: [...EDGES, "^lib/"] },
      to: { path: "^lib/services\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(\\.next|node_modules|\\.data|test-results|playwright-report)/" },
    // Type-only imports count: a cycle through types still ties the modules together.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".mjs", ".js", ".cjs", ".d.ts"],
      mainFields: ["module", "main", "types", "typings"],
    },
  },
};
