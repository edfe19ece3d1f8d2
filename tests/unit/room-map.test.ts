import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, posix, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(__dirname, "../..");

/** The folders the room map covers, each with every folder under it. */
const MAPPED_ROOTS = ["app", "package", "lib", "components", "scripts"];

/** Every folder under `folder` (itself included), as repository paths with a trailing slash. */
function foldersUnder(folder: string): string[] {
  const below = readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map(
      (entry) => `${posix.join(posix.relative(root, entry.parentPath.split("\\").join("/")), entry.name)}/`,
    );
  return [`${folder}/`, ...below];
}

/** The room map: the fenced block of docs/development.md whose lines start with the folders of `app/`. */
function roomMapLines(): string[] {
  const markdown = readFileSync(join(root, "docs/development.md"), "utf8");
  const blocks = [...markdown.matchAll(/^```\n([\s\S]*?)^```$/gm)].map((match) =>
    (match[1] ?? "").split("\n"),
  );
  const map = blocks.find((lines) => lines.some((line) => line.startsWith("app/")));
  if (!map) throw new Error("docs/development.md has no room map (a code block of app/, lib/... lines)");
  return map.filter((line) => line.trim() !== "");
}

/** The path a room-map line names: its first word, when it is under one of the mapped folders. */
function pathOf(line: string): string | null {
  const first = line.split(/\s+/)[0] ?? "";
  return MAPPED_ROOTS.some((folder) => first === `${folder}/` || first.startsWith(`${folder}/`))
    ? first
    : null;
}

/** The folder a path names: itself when it ends in a slash, else the folder of the file it names. */
function folderOf(path: string): string {
  return path.endsWith("/") ? path : `${posix.dirname(path)}/`;
}

describe("the room map in docs/development.md", () => {
  it("has a line of its own for every folder under app/, lib/, components/ and scripts/", () => {
    const named = roomMapLines()
      .map(pathOf)
      .filter((path) => path !== null)
      .map(folderOf);
    const missing = MAPPED_ROOTS.flatMap(foldersUnder).filter((folder) => !named.includes(folder));
    expect(missing, "add a line for each of these to the room map").toEqual([]);
    const twice = named.filter((folder, index) => named.indexOf(folder) !== index);
    expect(twice, "one line per folder").toEqual([]);
  });

  it("names only paths that exist", () => {
    const gone = roomMapLines()
      .map(pathOf)
      .filter((path) => path !== null && !existsSync(join(root, path)));
    expect(gone, "these lines name paths that are gone").toEqual([]);
  });

  // A test that cannot fail is worse than none: the reading must see a folder the map leaves out.
  it("reads the folders from the disk, nested ones included", () => {
    const folders = MAPPED_ROOTS.flatMap(foldersUnder);
    expect(folders).toContain("app/api/ops/briefs/[reference]/notes/");
    expect(folders).toContain("lib/visitor-email/emails/");
    expect(folders).not.toContain("lib/services.ts/");
  });
});
