import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { filesByUrl, init } from "@/package/cli/init";
import { INBOX_ROUTES, SITE_ROUTES } from "@/package/cli/routes";

const ROOT = path.resolve(".");
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** An empty TypeScript project with the given App Router folder (none: `null`); `{ js }`: no tsconfig.json. */
async function project(appDir: string | null, { js = false } = {}): Promise<{ cwd: string }> {
  const cwd = await mkdtemp(path.join(tmpdir(), "init-"));
  folders.push(cwd);
  if (!js) await writeFile(path.join(cwd, "tsconfig.json"), "{}\n");
  if (appDir !== null) await mkdir(path.join(cwd, appDir), { recursive: true });
  return { cwd };
}

/** What `init` prints. */
function output(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join("") };
}

describe("studio-intake init", () => {
  it("writes this site's own route files, link pages, inbox and proxy, byte for byte", async () => {
    const { cwd } = await project("app");
    const result = await init({ cwd, stdout: output().stream, inbox: true });
    expect(result.skipped).toEqual([]);
    expect(result.written).toHaveLength(SITE_ROUTES.length + INBOX_ROUTES.length);
    // The site keeps its pages in a route group, `(site)`: the same URL, so the same file.
    const site = await filesByUrl(ROOT, "app");
    for (const route of [...SITE_ROUTES, ...INBOX_ROUTES]) {
      const url = `/${path.dirname(route.path)}`;
      const own =
        route.besideApp || !/^(page|route)\./.test(path.basename(route.path))
          ? path.join(route.besideApp ? "" : "app", route.path)
          : site.get(url);
      expect(own, `this site has nothing at ${url}`).toBeDefined();
      const written = await readFile(path.join(cwd, route.besideApp ? "" : "app", route.path), "utf8");
      expect(written, route.path).toBe(await readFile(path.join(ROOT, own ?? ""), "utf8"));
    }
  });

  it("writes the inbox only when asked, and its pages render per request", async () => {
    const { cwd } = await project("app");
    const result = await init({ cwd, stdout: output().stream });
    expect(result.written).toHaveLength(SITE_ROUTES.length);
    expect(existsSync(path.join(cwd, "app", "inbox"))).toBe(false);
    expect(existsSync(path.join(cwd, "proxy.ts"))).toBe(false);

    const printed = output();
    const withInbox = await init({ cwd, stdout: printed.stream, inbox: true });
    expect(withInbox.written).toHaveLength(INBOX_ROUTES.length);
    expect(withInbox.skipped).toHaveLength(SITE_ROUTES.length);
    expect(printed.text()).toMatch(/OPS_EMAILS=.*\n.*LINK_SIGNING_SECRET=/);
    for (const route of INBOX_ROUTES.filter((file) => file.path.endsWith("page.tsx"))) {
      expect(await readFile(path.join(cwd, "app", route.path), "utf8"), route.path).toContain(
        'export const dynamic = "force-dynamic";',
      );
    }
  });

  it("names each file it skips once, the inbox's layout by its own name", async () => {
    const { cwd } = await project("app");
    await init({ cwd, stdout: output().stream, inbox: true });
    const again = await init({ cwd, stdout: output().stream, inbox: true });
    expect(again.written).toEqual([]);
    expect(again.skipped).toContain(path.join("app", "inbox", "layout.tsx"));
    expect(new Set(again.skipped).size).toBe(SITE_ROUTES.length + INBOX_ROUTES.length);
  });

  it("writes JavaScript files in a project without TypeScript, and counts them as there", async () => {
    const { cwd } = await project("app", { js: true });
    const result = await init({ cwd, stdout: output().stream, inbox: true });
    expect(result.written).toContain(path.join("app", "api", "contact", "route.js"));
    expect(result.written).toContain(path.join("app", "inbox", "layout.jsx"));
    expect(result.written).toContain("proxy.js");
    expect(result.written.filter((file) => /\.tsx?$/.test(file))).toEqual([]);
    expect(await readFile(path.join(cwd, "app", "api", "contact", "route.js"), "utf8")).toBe(
      'export { POST } from "studio-intake/next/contact";\n',
    );
    const again = await init({ cwd, stdout: output().stream, inbox: true });
    expect(again.written).toEqual([]);
    expect(again.skipped).toHaveLength(SITE_ROUTES.length + INBOX_ROUTES.length);
  });

  it("leaves the site's own proxy, or its middleware, alone and says what to add", async () => {
    const { cwd } = await project(path.join("src", "app"));
    await writeFile(path.join(cwd, "src", "middleware.ts"), "export function middleware() {}\n");
    const printed = output();
    const result = await init({ cwd, stdout: printed.stream, inbox: true });
    expect(result.skipped).toEqual([path.join("src", "middleware.ts")]);
    expect(existsSync(path.join(cwd, "src", "proxy.ts"))).toBe(false);
    expect(printed.text()).toContain("src/middleware.ts is the site's own");
    expect(printed.text()).toContain('"studio-intake/next/proxy"');
  });

  it("re-exports only modules the package exports", async () => {
    const manifest = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    for (const route of [...SITE_ROUTES, ...INBOX_ROUTES]) {
      expect(Object.keys(manifest.exports)).toContain(`./${route.module}`);
      const source = path.join(ROOT, "package", route.module);
      expect(existsSync(`${source}.ts`) || existsSync(`${source}.tsx`), route.module).toBe(true);
    }
  });

  it("leaves a URL the site already answers in a route group alone", async () => {
    const { cwd } = await project("app");
    const own = path.join(cwd, "app", "(marketing)", "thank-you", "page.tsx");
    await mkdir(path.dirname(own), { recursive: true });
    await writeFile(own, "export default function Thanks() { return null; }\n");
    const result = await init({ cwd, stdout: output().stream });
    expect(result.skipped).toEqual([path.join("app", "(marketing)", "thank-you", "page.tsx")]);
    expect(existsSync(path.join(cwd, "app", "thank-you"))).toBe(false);
  });

  it("never overwrites a file, names what it skipped, and a second run changes nothing", async () => {
    const { cwd } = await project(path.join("src", "app"));
    const own = path.join(cwd, "src", "app", "api", "health", "route.ts");
    await mkdir(path.dirname(own), { recursive: true });
    await writeFile(own, "// the site's own health route\n");

    const first = output();
    const result = await init({ cwd, stdout: first.stream });
    expect(result.appDir).toBe(path.join("src", "app"));
    expect(result.written).toContain(path.join("src", "instrumentation.ts"));
    expect(result.skipped).toEqual([path.join("src", "app", "api", "health", "route.ts")]);
    expect(result.written).toHaveLength(SITE_ROUTES.length - 1);
    expect(await readFile(own, "utf8")).toBe("// the site's own health route\n");
    expect(first.text()).toContain(`Skipped (already there, left as they are):\n  ${result.skipped[0]}`);
    expect(first.text()).toMatch(/SMTP_URL=.*\n.*EMAIL_FROM=.*\n.*EMAIL_TO=/);

    const second = output();
    const again = await init({ cwd, stdout: second.stream });
    expect(again.written).toEqual([]);
    expect(again.skipped).toHaveLength(SITE_ROUTES.length);
    expect(second.text()).not.toContain("Wrote:");
  });

  it("prefers app/ to src/app/, as Next does, and refuses a folder with neither", async () => {
    const { cwd } = await project("app");
    await mkdir(path.join(cwd, "src", "app"), { recursive: true });
    const result = await init({ cwd, stdout: output().stream });
    expect(result.appDir).toBe("app");
    expect(existsSync(path.join(cwd, "src", "app", "api"))).toBe(false);

    const empty = await project(null);
    await expect(init({ cwd: empty.cwd, stdout: output().stream })).rejects.toThrow(
      /No app\/ or src\/app\/ folder/,
    );
  });
});
