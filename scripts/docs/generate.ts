import { VARIABLE_GROUPS, VARIABLES } from "../../lib/config/variables";

/**
 * What `npm run docs` writes from `lib/config/variables.ts`: `.env.example` whole, and the
 * variable tables of `docs/configuration.md` between two markers (the prose around them is
 * written by hand). `tests/unit/docs.test.ts` fails when the committed files differ from these.
 */

export const TABLES_START = "<!-- variables:start (written by npm run docs from lib/config/variables.ts) -->";
export const TABLES_END = "<!-- variables:end -->";

const ENV_EXAMPLE_HEADER = `# Every variable the service reads (written by npm run docs from lib/config/variables.ts; the same
# list is docs/configuration.md). All are optional: with none set, the site runs on the embedded
# defaults (filesystem inbox under .data/inbox, rate limits in process memory, no notification
# channels). An empty value (FOO=) counts as not set. A malformed value stops the server at start.`;

/** `text` as comment lines of at most `width` characters, each starting `# `. */
function commentLines(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + 1 + word.length > width && line !== "#") {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

export function renderEnvExample(): string {
  const sections = VARIABLE_GROUPS.map((group) => {
    const entries = VARIABLES.filter((variable) => variable.group === group).map((variable) =>
      [...commentLines(variable.notes), `${variable.name}=${variable.example}`].join("\n"),
    );
    return [`# --- ${group} ---`, ...entries].join("\n\n");
  });
  return `${[ENV_EXAMPLE_HEADER, ...sections].join("\n\n")}\n`;
}

export function renderVariableTables(): string {
  const tables = VARIABLE_GROUPS.map((group) => {
    const rows = VARIABLES.filter((variable) => variable.group === group).map(
      (variable) => `| \`${variable.name}\` | ${variable.default} | ${variable.summary} |`,
    );
    return [`### ${group}`, "", "| variable | default | meaning |", "| --- | --- | --- |", ...rows].join(
      "\n",
    );
  });
  return [TABLES_START, "", ...tables.flatMap((table) => [table, ""]), TABLES_END].join("\n");
}

/** `document` with the text between the markers replaced by the current tables. */
export function withVariableTables(document: string): string {
  const start = document.indexOf(TABLES_START);
  const end = document.indexOf(TABLES_END);
  if (start === -1 || end < start) {
    throw new Error(`docs/configuration.md has lost its markers: ${TABLES_START} ... ${TABLES_END}`);
  }
  return document.slice(0, start) + renderVariableTables() + document.slice(end + TABLES_END.length);
}
