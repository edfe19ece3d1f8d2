/**
 * Compiles the package's stylesheets with the site's Tailwind into plain CSS in dist/ (part of
 * `npm run build:package`): the forms' `studio-intake/react/styles.css`, and the inbox's, which its
 * layout imports itself (`./styles.css`, left as it is by tsdown).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import tailwindcss from "@tailwindcss/postcss";
import postcss from "postcss";

for (const file of ["react/styles.css", "next/inbox/styles.css"]) {
  const from = path.resolve("package", file);
  const to = path.resolve("dist", file);
  const result = await postcss([tailwindcss({ base: path.dirname(from), optimize: true })]).process(
    await readFile(from, "utf8"),
    { from, to },
  );
  await mkdir(path.dirname(to), { recursive: true });
  await writeFile(to, result.css);
}
