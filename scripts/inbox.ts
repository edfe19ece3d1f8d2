/**
 * The ops inbox tool: `npm run -s inbox -- <command>` (see `--help` and docs/operations.md). The work is
 * in lib/ops, the command line and the printing in lib/ops-cli; this only connects it to the process, with the app's own configuration and services.
 */
import { loadEnvConfig } from "@next/env";
import { getConfig } from "../lib/config";
import { runInboxTool } from "../lib/ops-cli";
import { createInboxServices } from "../lib/services";

// The same .env files `next start` reads from this directory (the environment wins over them).
loadEnvConfig(process.cwd());

// Piped into `head` and the like: the reader has gone, which is not a failure of the command.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

void runInboxTool(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stderrIsTTY: process.stderr.isTTY === true,
  cwd: process.cwd(),
  services: () => createInboxServices(getConfig()),
}).then((code) => {
  process.exitCode = code;
});
