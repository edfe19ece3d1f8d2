/** The command line itself is wrong (unknown command, bad flag or value): usage, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}
