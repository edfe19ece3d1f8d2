import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      ".data/**",
      "next-env.d.ts",
      "test-results/**",
      "playwright-report/**",
      ".stryker-tmp/**",
      "reports/**",
    ],
  },
  {
    // The inbox tool (scripts/inbox.ts) runs lib/ with tsx from ops' own working directory, where
    // no tsconfig.json gives the "@/" alias: lib/ imports lib/ by relative path.
    files: ["lib/**/*.ts", "lib/**/*.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@/*"], message: "lib/ imports by relative path (see eslint.config.mjs)." }] },
      ],
    },
  },
];

export default config;
