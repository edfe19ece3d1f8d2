/**
 * Compiles package/react/styles.css with the site's Tailwind into dist/react/styles.css:
 * the package's `studio-intake/react/styles.css` (part of `npm run build:package`).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import tailwindcss from "@tailwindcss/postcss";
import postcss from "postcss";

const from = path.resolve("package/react/styles.css");
const to = path.resolve("dist/react/styles.css");
const result = await postcss([tailwindcss({ base: path.dirname(from), optimize: true })]).process(
  await readFile(from, "utf8"),
  { from, to },
);
await mkdir(path.dirname(to), { recursive: true });
await writeFile(to, result.css);
