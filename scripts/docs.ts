/**
 * `npm run docs`: writes `.env.example` and the variable tables of `docs/configuration.md` from
 * `lib/config/variables.ts`, then formats both with the project's prettier settings.
 */
import { readFile, writeFile } from "node:fs/promises";
import { format, resolveConfig } from "prettier";
import { renderEnvExample, withVariableTables } from "./docs/generate";

async function formatted(path: string, text: string): Promise<string> {
  const options = (await resolveConfig(path)) ?? {};
  return format(text, { ...options, filepath: path });
}

async function main() {
  const configuration = "docs/configuration.md";
  await writeFile(".env.example", renderEnvExample());
  const document = withVariableTables(await readFile(configuration, "utf8"));
  await writeFile(configuration, await formatted(configuration, document));
  console.log(`wrote .env.example and the variable tables of ${configuration}`);
}

void main();
