import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The unit tests of the modules `npm run mutation` mutates (stryker.config.mjs), and nothing else:
 * Stryker reruns the tests that cover a mutant for every mutant, so each file here is one that
 * exercises those modules directly, and every one is fast.
 */
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    // Instrumented code runs slower: the generated-body tests need more than the default 5 s.
    testTimeout: 30_000,
    include: [
      "tests/unit/sniff.test.ts",
      "tests/unit/sniff-edges.test.ts",
      "tests/unit/part-charsets.test.ts",
      "tests/unit/part-headers.test.ts",
      "tests/unit/client-address.test.ts",
      "tests/unit/links.test.ts",
      "tests/unit/brief-schema.test.ts",
      "tests/unit/newsletter-schema.test.ts",
      "tests/unit/text-schema.test.ts",
      "tests/unit/memory-cooldown.test.ts",
      "tests/unit/upstash-cooldown.test.ts",
    ],
  },
});
