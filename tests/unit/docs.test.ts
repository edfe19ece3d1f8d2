import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";
import { describe, expect, it } from "vitest";
import { VARIABLES } from "@/lib/config/variables";
import { parseConfig } from "@/lib/config";
import { renderEnvExample, withVariableTables } from "@/scripts/docs/generate";

const root = resolve(__dirname, "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** README.md and every Markdown file under docs/. */
function documents(): string[] {
  const docs = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".md"))
    .map((path) => join("docs", path));
  return ["README.md", ...docs];
}

/** Markdown without its fenced code blocks and inline code, where links are not links. */
function prose(markdown: string): string {
  const blank = (block: string) => block.replace(/[^\n]/g, "");
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, blank).replace(/`[^`\n]*`/g, "``");
}

/** The anchors GitHub gives a document's headings (and any `<a id>`/`<a name>` in it). */
function anchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const found = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    // GitHub slugs the heading's text as rendered: inline code keeps its content, links their text.
    const textOnly = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/`/g, "");
    found.add(slugger.slug(textOnly));
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id!);
  return found;
}

/** Every `[text](target)` and `<img src>` target of a document, with its line. */
function links(markdown: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  prose(markdown)
    .split("\n")
    .forEach((text, index) => {
      for (const match of text.matchAll(
        /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|<img\s[^>]*src="([^"]+)"/g,
      )) {
        found.push({ target: (match[1] ?? match[2])!, line: index + 1 });
      }
    });
  return found;
}

describe("documentation", () => {
  it("every relative link in README.md and docs/ points at a file (and heading) that exists", () => {
    const broken: string[] = [];
    for (const document of documents()) {
      const markdown = read(document);
      for (const { target, line } of links(markdown)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not a file of the repo
        const [path, anchor] = target.split("#", 2) as [string, string | undefined];
        const file =
          path === "" ? join(root, document) : resolve(dirname(join(root, document)), decodeURI(path));
        const where = `${document}:${line} -> ${target}`;
        if (!file.startsWith(root + "/") && file !== root) broken.push(`${where} (outside the repository)`);
        else if (!existsSync(file)) broken.push(`${where} (no such file: ${relative(root, file)})`);
        else if (anchor !== undefined && file.endsWith(".md") && statSync(file).isFile()) {
          if (!anchors(readFileSync(file, "utf8")).has(anchor)) broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("links that leave the repository go only to public documentation, never to a sibling checkout", () => {
    const offending = documents().flatMap((document) =>
      links(read(document))
        .filter(({ target }) => /(^|\/)\.\.\/shared\/|SPEC\.md|CONTRACT\.md/.test(target))
        .map(({ target, line }) => `${document}:${line} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it(".env.example is what npm run docs writes from lib/config/variables.ts", () => {
    expect(read(".env.example"), "run npm run docs").toBe(renderEnvExample());
  });

  it("docs/configuration.md's variable tables are what npm run docs writes", () => {
    const committed = read("docs/configuration.md");
    // The generator's output, before prettier aligns the tables: compare cell by cell.
    const cells = (markdown: string) =>
      markdown
        .split("\n")
        .filter((line) => line.startsWith("|") && !/^\|[\s|:-]+\|$/.test(line))
        .map((line) => line.split(/(?<!\\)\|/).map((cell) => cell.trim()));
    expect(cells(committed), "run npm run docs").toEqual(cells(withVariableTables(committed)));
  });

  it("the variables listed are exactly those lib/config/ reads: each one changes the parsed configuration", () => {
    const names = VARIABLES.map((variable) => variable.name);
    expect(new Set(names).size).toBe(names.length);
    const source = readdirSync(join(root, "lib/config"))
      .filter((name) => name.endsWith(".ts") && name !== "variables.ts")
      .map((name) => read(join("lib/config", name)))
      .join("\n");
    for (const name of names) expect(source, `lib/config/ never reads ${name}`).toContain(`raw.${name}`);
    const read_ = [...source.matchAll(/raw\.([A-Z][A-Z0-9_]*)/g)].map((match) => match[1]);
    expect(new Set(read_)).toEqual(new Set(names));
    // And the parser takes them: a known variable set to nonsense is refused by name.
    expect(() => parseConfig({ TRUSTED_PROXY_HOPS: "many" })).toThrow(/TRUSTED_PROXY_HOPS/);
  });
});
