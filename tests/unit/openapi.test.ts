import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { compileErrors, validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { HONEYPOT_FIELD, STAGED_UPLOAD_FIELD } from "@/lib/contact";
import { ERROR_STATUS, type ErrorCode } from "@/lib/http/errors";
import {
  buildOpenApiDocument,
  OPENAPI_FILE,
  type OpenApiDocument,
  type OperationObject,
  renderOpenApiDocument,
} from "@/lib/openapi";
import { ATTRIBUTION_FIELDS } from "@/lib/schemas/attribution";
import { BRIEF_FIELDS, BRIEF_LIMITS, BUDGETS, PROJECT_TYPES, TIMELINES } from "@/lib/schemas/brief";
import { NEWSLETTER_TOPICS } from "@/lib/schemas/newsletter";
import { EMAIL_MAX_LENGTH } from "@/lib/schemas/text";
import { TOKEN_FIELD } from "@/lib/verification";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

type Json = Record<string, unknown>;

const document = buildOpenApiDocument();

function operations(doc: OpenApiDocument): [string, OperationObject][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, OperationObject] => [
      `${method.toUpperCase()} ${path}`,
      operation,
    ]),
  );
}

function schema(name: string): Json {
  const found = document.components.schemas[name];
  if (!found) throw new Error(`No schema ${name} in the document`);
  return found;
}

function property(schemaName: string, name: string): Json {
  return (schema(schemaName).properties as Record<string, Json>)[name] ?? {};
}

/** Every `app/**∕route.ts` under `app/api`, as `METHOD /url/path`, from the functions it exports. */
async function routeHandlers(): Promise<string[]> {
  const apiDir = join(ROOT, "app", "api");
  const entries = await readdir(apiDir, { recursive: true, withFileTypes: true });
  const handlers: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !/^route\.(ts|tsx|js)$/.test(entry.name)) continue;
    const segments = relative(join(ROOT, "app"), entry.parentPath).split(sep);
    const path =
      "/" +
      segments
        .filter((segment) => !/^\(.*\)$/.test(segment)) // route groups are not in the URL
        .map((segment) => segment.replace(/^\[(?:\.\.\.)?(.+)\]$/, "{$1}"))
        .join("/");
    // A catch-all (`[...path]`) only refuses: 404, or 401 without a session. Not an operation.
    if (segments.some((segment) => segment.startsWith("[..."))) continue;
    const source = await readFile(join(entry.parentPath, entry.name), "utf8");
    // A route file as `init` writes it re-exports the package's module: the handlers are there.
    const reexported = /from\s+"studio-intake\/(next\/[^"]+)"/.exec(source)?.[1];
    const handlerSource = reexported
      ? await readFile(join(ROOT, "package", `${reexported}.ts`), "utf8")
      : source;
    // `export const GET = postOnly`: a method that answers only 405 (404 while its feature is off).
    const refusing = new Set(
      [...handlerSource.matchAll(/export\s+const\s+([A-Z]+)\s*=\s*postOnly\b/g)].map((m) => m[1]),
    );
    const exported = [
      ...source.matchAll(/export\s+(?:async\s+)?function\s+([A-Z]+)\b/g),
      ...source.matchAll(/export\s+const\s+([A-Z]+)\s*=/g),
    ]
      .map((match) => match[1])
      // `export { GET, POST } from "studio-intake/next/…"`: a route file as `init` writes it.
      .concat(
        [...source.matchAll(/export\s*\{([^}]*)\}\s*from/g)].flatMap((m) =>
          (m[1] ?? "").split(",").map((name) => name.trim()),
        ),
      );
    for (const method of exported)
      if (method && HTTP_METHODS.includes(method) && !refusing.has(method))
        handlers.push(`${method} ${path}`);
  }
  return handlers.sort();
}

describe("docs/openapi.json", () => {
  it("is what `npm run openapi` writes now", async () => {
    const committed = await readFile(join(ROOT, OPENAPI_FILE), "utf8").catch(() => "(missing)");
    const generated = await renderOpenApiDocument(ROOT);
    expect(committed === generated, `${OPENAPI_FILE} is stale: run \`npm run openapi\` and commit it`).toBe(
      true,
    );
  });

  it("is a valid OpenAPI 3.1 document (@readme/openapi-parser)", async () => {
    const committed = JSON.parse(await readFile(join(ROOT, OPENAPI_FILE), "utf8")) as OpenApiDocument;
    expect(committed.openapi).toMatch(/^3\.1\.\d+$/);
    const result = await validate(structuredClone(committed) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it("is refused by the validator when broken, so the check above means something", async () => {
    const broken = structuredClone(document) as unknown as { paths: Record<string, Record<string, Json>> };
    const responses = broken.paths["/api/contact"]?.post?.responses as Record<string, Json>;
    delete responses["200"]?.description;
    const result = await validate(broken as never);
    expect(result.valid).toBe(false);
  });
});

describe("the OpenAPI document", () => {
  it("describes every exported handler under app/api, and nothing else", async () => {
    const documented = operations(document)
      .map(([name]) => name)
      .sort();
    expect(documented).toEqual(await routeHandlers());
  });

  it("has unique operation ids", () => {
    const ids = operations(document).map(([, operation]) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("lists every error code in the Error schema, and each code under its own status", () => {
    expect([...(property("Error", "error").enum as string[])].sort()).toEqual(
      Object.keys(ERROR_STATUS).sort(),
    );

    const answered = new Set<string>();
    for (const [name, operation] of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const body = response.content?.["application/json"]?.schema as {
          allOf: [Json, { properties: Json }];
        };
        const codes = (body.allOf[1].properties.error as { enum: ErrorCode[] }).enum;
        for (const code of codes) {
          expect(ERROR_STATUS[code], `${name} lists ${code} under ${status}`).toBe(Number(status));
          answered.add(code);
        }
      }
    }
    expect([...answered].sort(), "every code is answered by some operation").toEqual(
      Object.keys(ERROR_STATUS).sort(),
    );
  });

  it("sends Cache-Control with every answer, and Retry-After and the RateLimit headers with every 429", () => {
    for (const [name, operation] of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(Object.keys(response.headers ?? {}), `${name} ${status}`).toContain("Cache-Control");
      }
      const tooMany = operation.responses["429"];
      if (!tooMany) continue;
      expect(Object.keys(tooMany.headers ?? {})).toEqual(
        expect.arrayContaining(["Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]),
      );
      expect(Object.keys(operation.responses["200"]?.headers ?? {}), `${name} 200`).toContain(
        "RateLimit-Limit",
      );
    }
    expect(document.components.headers["Retry-After"]?.required).toBe(true);
  });

  it("gives each 303 a Location", () => {
    const redirects = operations(document).filter(([, operation]) => operation.responses["303"]);
    expect(redirects.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        "POST /api/contact",
        "POST /api/newsletter",
        "GET /api/newsletter/unsubscribe",
      ]),
    );
    for (const [, operation] of redirects) {
      expect(Object.keys(operation.responses["303"]?.headers ?? {})).toContain("Location");
    }
  });

  it("takes the contact form's fields, options and lengths from the brief schema", () => {
    const contact = schema("ContactForm");
    const properties = contact.properties as Record<string, Json>;
    expect(Object.keys(properties)).toEqual([
      ...BRIEF_FIELDS,
      "brief",
      STAGED_UPLOAD_FIELD,
      TOKEN_FIELD,
      HONEYPOT_FIELD,
      ...Object.keys(ATTRIBUTION_FIELDS),
    ]);
    // Where the lead came from: optional, with the length each keeps (longer is dropped, not refused).
    for (const [field, max] of Object.entries(ATTRIBUTION_FIELDS)) {
      expect(property("ContactForm", field)).toMatchObject({ type: "string", maxLength: max });
    }
    expect(property("Subscription", "page")).toMatchObject({ type: "string", maxLength: 500 });
    expect(property("ContactForm", "projectType").enum).toEqual(Object.keys(PROJECT_TYPES));
    expect(property("ContactForm", "budget").enum).toEqual(Object.keys(BUDGETS));
    expect(property("ContactForm", "timeline").enum).toEqual(Object.keys(TIMELINES));
    expect(property("ContactForm", "consent").const).toBe("on");
    expect(property("ContactForm", "brief").format).toBe("binary");
    expect(contact.required).toEqual([
      "name",
      "email",
      "projectType",
      "budget",
      "timeline",
      "description",
      "consent",
    ]);

    // The lengths are checked in a superRefine, which JSON Schema cannot see: text() states them as metadata.
    expect(property("ContactForm", "name")).toMatchObject({
      minLength: BRIEF_LIMITS.name.min,
      maxLength: BRIEF_LIMITS.name.max,
    });
    expect(property("ContactForm", "description")).toMatchObject({
      minLength: BRIEF_LIMITS.description.min,
      maxLength: BRIEF_LIMITS.description.max,
    });
    expect(property("ContactForm", "company")).toMatchObject({ maxLength: BRIEF_LIMITS.company.max });
    expect(property("ContactForm", "role")).toMatchObject({ maxLength: BRIEF_LIMITS.role.max });
    expect(property("ContactForm", "email")).toMatchObject({ format: "email", maxLength: EMAIL_MAX_LENGTH });

    const body = document.paths["/api/contact"]?.post?.requestBody;
    expect(Object.keys(body?.content ?? {})).toEqual(["multipart/form-data"]);
  });

  it("takes the newsletter's topics from the newsletter schema", () => {
    const topics = property("Subscription", "topics");
    expect((topics.items as Json).enum).toEqual([...NEWSLETTER_TOPICS]);
    expect(topics.uniqueItems).toBe(true);
    expect(schema("Subscription").required).toEqual(["email"]);
  });

  it("is deterministic", () => {
    expect(JSON.stringify(buildOpenApiDocument())).toBe(JSON.stringify(document));
  });
});
