#!/usr/bin/env node
/**
 * `studio-intake`, the package's command: `init` writes the route files into the site
 * it runs in; `inbox <command>` is the ops tool, on that site's environment and .env files.
 */
import { init } from "./init";
import { runInbox } from "./inbox";

const USAGE = `Usage:
  studio-intake init             write the route files into app/ (or src/app/); never overwrites
  studio-intake init --inbox     the same, and the inbox on the web (/inbox, /api/ops, proxy.ts)
  studio-intake inbox <command>  the ops inbox tool (studio-intake inbox --help)
`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "inbox") return runInbox(rest);
  if (command === "init") {
    const unknown = rest.find((option) => option !== "--inbox");
    if (unknown !== undefined) {
      process.stderr.write(`Unknown option ${unknown}.\n${USAGE}`);
      return 2;
    }
    await init({ cwd: process.cwd(), stdout: process.stdout, inbox: rest.includes("--inbox") });
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
