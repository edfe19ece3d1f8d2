import { defineConfig } from "tsdown";

/**
 * The npm package `studio-intake` (package.json `exports`, `bin`): unbundled, so `dist/` keeps the
 * source's module structure (each client module keeps its "use client" directive, and Next bundles
 * the site's code as it does its own), with the `@/` imports made relative.
 */
export default defineConfig({
  entry: [
    "package/next/*.ts",
    "package/next/pages/*.tsx",
    "package/next/inbox/*.{ts,tsx}",
    "package/next/ops/*.ts",
    "package/react/index.ts",
    "package/cli/studio-intake.ts",
  ],
  unbundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  dts: true,
  outDir: "dist",
  deps: {
    neverBundle: [
      // A stylesheet a module imports stays an import: Next builds it in the adopting site, from
      // the plain CSS scripts/package-styles.mjs writes beside the module.
      /\.css$/,
      // `next/navigation`, `next/headers` and `next/link` exactly as written, never made
      // `next/navigation.js` (what tsdown does for a package without `exports`): Next maps the
      // bare names to the variant for each layer, and a route handler given the browser's
      // `navigation.js` fails its build. `next/server` keeps its `.js`: the command line, plain
      // Node, imports it (through lib/background.ts), and Node finds a file in a package without
      // `exports` only by its name.
      /^next\/(navigation|headers|link)$/,
    ],
  },
  tsconfig: "tsconfig.json",
});
