/**
 * The ops tool (`npm run inbox`, scripts/inbox.ts): its command line and its printing, over the
 * ops actions of lib/ops. Exit status: 0 done, 1 failed, 2 wrong usage.
 */
export { runInboxTool } from "./cli";
export type { Output, ToolServices } from "./context";
export { UsageError } from "./errors";
export { type CommandName, type Invocation, parseInvocation } from "./invocation";
export { USAGE } from "./usage";
