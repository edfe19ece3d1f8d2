import { ConfigError } from "../config";
import { ApiError } from "../http/errors";
import { describeFailure } from "../notify";
import { OpsError } from "../ops";
import { StoreUnavailableError } from "../store";
import { COMMANDS } from "./commands";
import type { CommandContext, Output } from "./context";
import { UsageError } from "./errors";
import { type Invocation, parseInvocation } from "./invocation";
import { USAGE } from "./usage";

/**
 * `npm run inbox -- <command>`: parses the command line, builds the inbox's services only once it
 * is valid, runs the command and answers its exit status. Never throws.
 */
export async function runInboxTool(argv: readonly string[], output: Output): Promise<number> {
  const { stderr } = output;
  let invocation: Invocation | "help";
  try {
    invocation = parseInvocation(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`inbox: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (invocation === "help") {
    output.stdout.write(USAGE);
    return 0;
  }
  try {
    const context: CommandContext = {
      ...output,
      ...output.services(),
      now: output.now ?? (() => new Date()),
    };
    return await COMMANDS[invocation.command](invocation, context);
  } catch (error) {
    if (error instanceof ConfigError) {
      stderr.write(`inbox: ${error.message}\nSee .env.example for every variable and its format.\n`);
    } else if (error instanceof OpsError) {
      stderr.write(`inbox: ${error.message}\n`);
    } else if (error instanceof ApiError && error.code !== "internal_error") {
      // An action's refusal (not found, a field not valid): its own words, as a failure.
      stderr.write(`inbox: ${Object.values(error.fields ?? {})[0] ?? error.message}\n`);
    } else if (error instanceof StoreUnavailableError) {
      stderr.write(`inbox: the inbox could not be read: ${describeFailure(error)}\n`);
    } else {
      stderr.write(
        `inbox: ${describeFailure(error)}\n${error instanceof Error ? (error.stack ?? "") : ""}\n`,
      );
    }
    return 1;
  }
}
