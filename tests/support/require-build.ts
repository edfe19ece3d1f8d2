import { existsSync } from "node:fs";

/** Integration tests run against the production build; `npm test` builds it first. */
export default function requireBuild(): void {
  if (!existsSync(".next/BUILD_ID")) {
    throw new Error("No production build found: run `npm run build` first (npm test does it for you).");
  }
}
