import * as nextEnvModule from "@next/env";
import { getConfig } from "../../lib/config";
import { runInboxTool } from "../../lib/ops-cli";
import { createInboxServices } from "../../lib/services";

/**
 * `@next/env` is CommonJS whose names Node's ESM loader cannot see (the compiled bin finds them on
 * its default export only), while tsx (`npm run inbox`, CommonJS) gives them by name.
 */
const nextEnv = (nextEnvModule as { default?: typeof nextEnvModule }).default ?? nextEnvModule;

/**
 * The ops inbox tool on this process (see `--help` and docs/operations.md): the work is in lib/ops,
 * the command line and the printing in lib/ops-cli; this connects it to the process, with the
 * site's own configuration and services, from the folder it runs in.
 */
export async function runInbox(argv: readonly string[]): Promise<number> {
  // The same .env files `next start` reads from this directory (the environment wins over them).
  nextEnv.loadEnvConfig(process.cwd());

  // Piped into `head` and the like: the reader has gone, which is not a failure of the command.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });

  return runInboxTool([...argv], {
    stdout: process.stdout,
    stderr: process.stderr,
    stderrIsTTY: process.stderr.isTTY === true,
    cwd: process.cwd(),
    services: () => createInboxServices(getConfig()),
  });
}
