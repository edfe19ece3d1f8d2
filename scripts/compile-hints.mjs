/**
 * The build's last step (`npm run build` runs it after `next build`): marks each of the browser's
 * chunks with V8's compile hint, `//# allFunctionsCalledOnLoad` on its first line, so Chromium
 * compiles the whole chunk while it streams it in, on a background thread, instead of compiling
 * each function on the main thread when it is first called.
 *
 * Why: on the landing page the framework's start-up (React DOM's and Next's module code, each a
 * single large function) was one long task, most of it V8 parsing those functions lazily on the
 * main thread (about 90 of 150 ms in a trace), and that task was most of Lighthouse's Total
 * Blocking Time (see docs/performance.md, "Lighthouse: the landing page"). Every chunk is loaded
 * only when its code is about to run (Turbopack splits the code by page and by dynamic import),
 * so compiling a chunk whole is not work done for nothing. Browsers without the hint read a comment.
 *
 * Idempotent: a chunk already marked is left as it is. Plain JavaScript so that the build needs
 * nothing but Node. Were Subresource Integrity (`experimental.sri`) ever turned on, its hashes
 * would be taken before this step and no longer match: the step would have to go.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** V8's magic comment for "compile every function in this script eagerly" (Chromium 136 and later). */
export const COMPILE_HINT = "//# allFunctionsCalledOnLoad";

/** `source` with the compile hint on its first line (as it is, when it has it already). */
export function withCompileHint(source) {
  return source.startsWith(COMPILE_HINT) ? source : `${COMPILE_HINT}\n${source}`;
}

/**
 * Marks every `.js` file under `chunksDirectory` (the build's `static/chunks`). Returns how many
 * files it changed. A build with no chunks directory is left alone.
 */
export async function addCompileHints(chunksDirectory = ".next/static/chunks") {
  let entries;
  try {
    entries = await readdir(chunksDirectory, { recursive: true, withFileTypes: true });
  } catch (error) {
    if (error?.code === "ENOENT") return 0;
    throw error;
  }
  let changed = 0;
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
    const path = join(entry.parentPath, entry.name);
    const source = await readFile(path, "utf8");
    const hinted = withCompileHint(source);
    if (hinted === source) continue;
    await writeFile(path, hinted);
    changed += 1;
  }
  return changed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const changed = await addCompileHints();
  console.log(`compile hints: ${changed} chunk(s) marked`);
}
