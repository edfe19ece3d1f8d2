import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addCompileHints, COMPILE_HINT, withCompileHint } from "../../scripts/compile-hints.mjs";

describe("withCompileHint", () => {
  it("puts V8's magic comment on a line of its own before the chunk", () => {
    expect(COMPILE_HINT).toBe("//# allFunctionsCalledOnLoad");
    expect(withCompileHint("(globalThis.TURBOPACK||[]).push([])")).toBe(
      "//# allFunctionsCalledOnLoad\n(globalThis.TURBOPACK||[]).push([])",
    );
  });

  it("leaves a chunk that has it as it is", () => {
    const hinted = withCompileHint("let a = 1;");
    expect(withCompileHint(hinted)).toBe(hinted);
  });
});

describe("addCompileHints", () => {
  let chunks: string;
  beforeEach(async () => {
    chunks = await mkdtemp(join(tmpdir(), "compile-hints-"));
  });
  afterEach(async () => {
    await rm(chunks, { recursive: true, force: true });
  });

  it("marks every script under the chunks directory, nested ones too, once", async () => {
    await mkdir(join(chunks, "app"));
    await writeFile(join(chunks, "runtime.js"), "a();");
    await writeFile(join(chunks, "app", "page.js"), "b();");
    await writeFile(join(chunks, "styles.css"), "body{}");

    expect(await addCompileHints(chunks)).toBe(2);
    expect(await readFile(join(chunks, "runtime.js"), "utf8")).toBe(`${COMPILE_HINT}\na();`);
    expect(await readFile(join(chunks, "app", "page.js"), "utf8")).toBe(`${COMPILE_HINT}\nb();`);
    expect(await readFile(join(chunks, "styles.css"), "utf8")).toBe("body{}");

    expect(await addCompileHints(chunks)).toBe(0);
    expect(await readFile(join(chunks, "runtime.js"), "utf8")).toBe(`${COMPILE_HINT}\na();`);
  });

  it("does nothing where there is no build", async () => {
    expect(await addCompileHints(join(chunks, "missing"))).toBe(0);
  });
});
