import { eraseAddress, exportPerson } from "../ops";
import { actor } from "./changes";
import { type CommandContext, problemReporter, write } from "./context";
import type { Invocation } from "./invocation";
import { printable } from "./text";

/**
 * `person <address> [--erase]`: what the inbox holds about an address, as the web's "Download"
 * answers it, on stdout (audited as `export-person`); with `--erase`, then removed as `erase`
 * removes it (audited as `erase`), the counts on stderr so stdout stays the one JSON document.
 */
export async function person(invocation: Invocation, context: CommandContext): Promise<number> {
  const address = invocation.address ?? "";
  const problems = problemReporter(context.stderr);
  const acting = { actor: actor(invocation), now: context.now(), onProblem: problems.report };
  const data = await exportPerson(context, address, acting);
  await write(context.stdout, `${JSON.stringify(data, null, 2)}\n`);
  if (invocation.erase) {
    const result = await eraseAddress(context, { email: address, confirm: address }, acting);
    await write(
      context.stderr,
      `Erased ${result.briefs} briefs, ${result.spam} spam entries and ${result.subscribers} subscriber records of ${printable(address)}.\n`,
    );
  }
  return problems.count > 0 ? 1 : 0;
}
