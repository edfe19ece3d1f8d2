/**
 * The ops inbox tool from this checkout: `npm run -s inbox -- <command>`; an adopting site runs the
 * same as `npx studio-intake inbox <command>` (package/cli/studio-intake.ts).
 */
import { runInbox } from "../package/cli/inbox";

void runInbox(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
