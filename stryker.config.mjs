/**
 * Mutation testing of the pure core: the parsers and guards whose every refusal a test must see
 * (`npm run mutation`; not part of `npm test`). The scores, the mutants known to be equivalent and
 * why, are in docs/development.md. The report: reports/mutation/mutation.html.
 *
 * @type {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
const config = {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.mts" },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: [
    "lib/attachments/sniff.ts",
    "lib/http/part-charsets.ts",
    "lib/http/client-address.ts",
    "lib/links/tokens.ts",
    "lib/schemas/text.ts",
    "lib/schemas/brief.ts",
    "lib/ratelimit/cooldown.ts",
  ],
  coverageAnalysis: "perTest",
  // Code that runs while a module loads (its constants, regexes, tables; schemas built at import)
  // gives "static" mutants, which Stryker 9.6's Vitest runner never switches on: they would all
  // be reported as survivors whatever the tests do (stryker-js #6144, #6209). They are left out
  // of the score, and the tests call the modules only inside tests, so their mutants stay measured.
  ignoreStatic: true,
  // Two cores, shared: one test process at a time.
  concurrency: 1,
  // `npm run mutation -- --incremental` reruns only what changed since the last run.
  incrementalFile: "reports/stryker-incremental.json",
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  ignorePatterns: [".next", ".data", "test-results", "playwright-report", "bench", "coverage", "docs/*.png"],
  thresholds: { high: 90, low: 80, break: 90 },
  timeoutMS: 10_000,
};

export default config;
