#!/usr/bin/env node
/**
 * `studio-intake`, the package's command: `init` writes the route files into the site
 * it runs in; `inbox <command>` is the ops tool, on that site's environment and .env files.
 */
import { init } from "./init";
import { runInbox } from "./inbox";

const USAGE = `Usage:
  studio-intake init             write the route files into app/ (or src/app/); never overwrites
  studio-intake inbox <command>  the ops inbox tool (studio-intake inbox --help)
`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "inbox") return runInbox(rest);
  if (command === "init") {
    // The inbox's pages are still this site's own (app/inbox), not yet in the package.
    if (rest.includes("--inbox")) {
      process.stderr.write("--inbox is not available yet: the inbox's pages are not in the package.\n");
      return 2;
    }
    if (rest.length > 0) {
      process.stderr.write(`Unknown option ${rest[0]}.\n${USAGE}`);
      return 2;
    }
    await init({ cwd: process.cwd(), stdout: process.stdout });
    return 0;
  }
  if (command === "--help" || command === "-h") {
    process.stdout.write(USAGE);
    return 0;
  }
  process.stderr.write(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
