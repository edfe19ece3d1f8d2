import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

/**
 * Every dependency through its public API (CONTRACT.md part 5): no import of a package's internal
 * files. Type-only imports are let through (the `@types` packages publish their types by those
 * paths), and so is the one deep path a package documents as its API: nodemailer's MailComposer.
 */
const PACKAGE_INTERNALS = {
  regex: "^(?!nodemailer/lib/mail-composer$)(@[^/]+/)?[^/@.][^/]*/(lib|dist|src|internal|build|cjs|esm)(/|$)",
  allowTypeImports: true,
  message: "A package's internal file: use what the package documents (CONTRACT.md part 5).",
};

/** No V8 flag changed at run time and no code run from strings in a fresh context. */
const RUNTIME_HACKS = {
  paths: [
    { name: "v8", importNames: ["setFlagsFromString"], message: "No V8 flags changed at run time (part 5)." },
    {
      name: "node:v8",
      importNames: ["setFlagsFromString"],
      message: "No V8 flags changed at run time (part 5).",
    },
    { name: "vm", importNames: ["runInNewContext"], message: "No code run in a fresh context (part 5)." },
    {
      name: "node:vm",
      importNames: ["runInNewContext"],
      message: "No code run in a fresh context (part 5).",
    },
  ],
};

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      ".data/**",
      "dist/**",
      "next-env.d.ts",
      "test-results/**",
      "playwright-report/**",
      ".stryker-tmp/**",
      "reports/**",
    ],
  },
  {
    rules: {
      "no-restricted-imports": ["error", { ...RUNTIME_HACKS, patterns: [PACKAGE_INTERNALS] }],
      "no-restricted-properties": [
        "error",
        {
          object: "v8",
          property: "setFlagsFromString",
          message: "No V8 flags changed at run time (part 5).",
        },
        { object: "vm", property: "runInNewContext", message: "No code run in a fresh context (part 5)." },
      ],
    },
  },
  {
    // The inbox tool (scripts/inbox.ts) runs package/cli/ and lib/ with tsx from ops' own working
    // directory, where no tsconfig.json gives the "@/" alias: they import by relative path.
    files: ["lib/**/*.ts", "lib/**/*.tsx", "package/cli/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          ...RUNTIME_HACKS,
          patterns: [
            PACKAGE_INTERNALS,
            {
              group: ["@/*"],
              message: "lib/ and package/cli/ import by relative path (see eslint.config.mjs).",
            },
          ],
        },
      ],
    },
  },
];

export default config;
