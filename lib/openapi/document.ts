import { z } from "zod";
import packageJson from "../../package.json";
import { formatBytes } from "../format";
import { DEFAULT_MESSAGES, ERROR_STATUS, type ErrorCode } from "../http/errors";
import { errorBody } from "../http/responses";
import { OPERATIONS, TAGS } from "./operations";
import type { BodyContent, MediaType, NamedSchema, OperationSpec, Parameter, Tag } from "./types";

/**
 * The API's OpenAPI 3.1 document, built from the operation list in `./operations` and the zod
 * schemas it names. Deterministic: the same code always gives the same document, so the committed
 * `docs/openapi.json` can be compared with a fresh one.
 */

export type JsonSchema = Record<string, unknown>;

export interface HeaderObject {
  description: string;
  required: boolean;
  schema: JsonSchema;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<
    string,
    { schema: JsonSchema; examples?: Record<string, { summary: string; value: unknown }> }
  >;
}

export interface OperationObject {
  tags: string[];
  summary: string;
  description: string;
  operationId: string;
  parameters?: {
    name: string;
    in: Parameter["in"];
    required: boolean;
    description: string;
    schema: JsonSchema;
  }[];
  requestBody?: {
    description?: string;
    required: boolean;
    content: Record<string, { schema: JsonSchema; encoding?: BodyContent["encoding"] }>;
  };
  responses: Record<string, ResponseObject>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  tags: Tag[];
  paths: Record<string, Partial<Record<OperationSpec["method"], OperationObject>>>;
  components: { schemas: Record<string, JsonSchema>; headers: Record<string, HeaderObject> };
}

const DESCRIPTION = `The HTTP API of the studio's intake service: project briefs from the contact form, newsletter subscriptions, and what the site's pages ask at run time. Generated from the zod schemas the routes and forms use (\`npm run openapi\`); docs/api.md says the same in prose.

Every JSON answer is \`application/json; charset=utf-8\` with \`Cache-Control: no-store\`. Every failure has one shape, \`Error\`: \`{ ok: false, error, message, fields? }\`, where \`error\` is a code that decides the status, and a 422 adds \`fields\` with every invalid field at once. A method a path does not list is answered \`405\` by Next.js, with no body.

Checks run in this order, each answering before the next costs anything: method, origin (contact and upload tokens only), rate limit, declared size (\`Content-Length\`), media type, parse while counting bytes, validate, human verification, store, notify, respond. Every request that passes the origin check counts against its endpoint's budget, and every answer after that check carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; a 429 always carries \`Retry-After\`.`;

/** What each code means, where an operation says nothing more precise. */
const WHEN: Record<ErrorCode, string> = {
  malformed_body:
    "The body cannot be read: invalid JSON or JSON that is not an object, a broken multipart body, bytes that are not UTF-8, or a connection closed before the body ended.",
  unauthorized: "The request does not carry the credential the route needs.",
  not_found: "The route's feature is switched off on this server.",
  cross_origin:
    "Sent from another origin: an `Origin` that is neither the site's own, `SITE_URL`'s nor one of `ALLOWED_ORIGINS`; `Origin: null`; or, without `Origin`, `Sec-Fetch-Site: cross-site` or `same-site`. A request with neither header (curl, a server) is not cross-origin.",
  challenge_failed:
    "Human verification is on and the `cf-turnstile-response` token is missing or refused. Nothing is stored.",
  upload_unavailable:
    "The server has no Vercel Blob inbox, so files are sent in the form itself. Answered before any other check.",
  payload_too_large: "The body is over the cap (declared in `Content-Length`, or counted while reading).",
  unsupported_media_type: "The body has another media type.",
  validation_failed: "Field rules are broken: `fields` names every invalid field, each with a sentence.",
  rate_limited: "Over the rate limit: wait `Retry-After` seconds.",
  storage_unavailable:
    "The inbox could not be written or read in time; nothing half-written remains, and sending again is safe.",
  email_unavailable:
    "Double opt-in: the confirmation email could not be sent, or its 10-minute window could not be checked while Redis is down. The subscription is stored, pending; sending again retries.",
  internal_error: "A bug: logged on the server, never described in the body.",
};

function jsonSchema(schema: z.ZodType): JsonSchema {
  const result: JsonSchema = { ...z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" }) };
  // The document's dialect (OpenAPI 3.1's, a superset of draft 2020-12) applies to every schema.
  delete result.$schema;
  return result;
}

const integer = (minimum: number): JsonSchema => ({ type: "integer", minimum });

/**
 * The headers the API's answers carry, published once under `components.headers`. The
 * `RateLimit-*` ones are sent by every answer once the request has passed the rate limit (so
 * always with a 200 or a 429), which OpenAPI's per-response `required` cannot say for a status
 * that some codes reach before the limit and others after it: they are optional here, and the
 * description says when.
 */
const HEADERS = {
  "Cache-Control": {
    description: "Always `no-store`.",
    required: true,
    schema: { type: "string", const: "no-store" },
  },
  Location: {
    description: "Where the browser goes next: a page of the site.",
    required: true,
    schema: { type: "string" },
  },
  "RateLimit-Limit": {
    description:
      "Requests allowed per window. On every answer once the request passed the rate limit: always on a 200 and a 429.",
    required: false,
    schema: integer(1),
  },
  "RateLimit-Remaining": {
    description: "Requests left in the window. Sent with `RateLimit-Limit`.",
    required: false,
    schema: integer(0),
  },
  "RateLimit-Reset": {
    description: "Seconds until a request is counted in a fresh slot. Sent with `RateLimit-Limit`.",
    required: false,
    schema: integer(1),
  },
  "Retry-After": {
    description: "Whole seconds to wait before sending again (at least 1). Always on a 429.",
    required: true,
    schema: integer(1),
  },
} satisfies Record<string, HeaderObject>;

type HeaderName = keyof typeof HEADERS;

function responseHeaders(names: (HeaderName | false)[]): Record<string, { $ref: string }> {
  return Object.fromEntries(
    names.filter((name) => name !== false).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
}

const RATE_LIMIT_HEADERS: HeaderName[] = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The 4xx and 5xx answers of one operation, one per status, each listing the codes it can carry. */
function errorResponses(operation: OperationSpec): Record<string, ResponseObject> {
  const codes: ErrorCode[] = [
    ...operation.errors,
    ...(operation.rateLimit ? (["rate_limited"] as const) : []),
  ];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);

  const responses: Record<string, ResponseObject> = {};
  for (const [status, statusCodes] of byStatus) {
    const lines = statusCodes.map((code) => `\`${code}\`: ${when(operation, code)}`);
    const validation = statusCodes.includes("validation_failed");
    responses[String(status)] = {
      description: lines.length === 1 ? lines.join("") : lines.map((line) => `- ${line}`).join("\n"),
      headers: responseHeaders([
        "Cache-Control",
        ...(operation.rateLimit ? RATE_LIMIT_HEADERS : []),
        status === 429 && "Retry-After",
      ]),
      content: {
        "application/json": {
          schema: {
            allOf: [
              ref("Error"),
              {
                properties: { error: { enum: statusCodes } },
                ...(validation ? { required: ["fields"] } : {}),
              },
            ],
          },
          examples: Object.fromEntries(
            statusCodes.map((code) => [
              code,
              {
                summary: code,
                value: {
                  ok: false,
                  error: code,
                  message: DEFAULT_MESSAGES[code],
                  ...(code === "validation_failed" ? { fields: operation.fieldsExample ?? {} } : {}),
                },
              },
            ]),
          ),
        },
      },
    };
  }
  return responses;
}

function when(operation: OperationSpec, code: ErrorCode): string {
  const specific = operation.when?.[code];
  if (specific) return specific;
  if (code === "payload_too_large" && operation.body?.limit !== undefined) {
    const limit = operation.body.limit;
    return `The body is over ${formatBytes(limit)} (${limit.toLocaleString("en-US")} bytes), declared in \`Content-Length\` or counted while reading.`;
  }
  if (code === "rate_limited" && operation.rateLimit)
    return `Over ${operation.rateLimit}: wait \`Retry-After\` seconds.`;
  return WHEN[code];
}

/** What an operation takes, then what it answers, in the order a reader looks for them. */
function buildOperation(
  operation: OperationSpec,
  publish: (named: NamedSchema) => JsonSchema,
): OperationObject {
  const built: OperationObject = {
    tags: [operation.tag],
    summary: operation.summary,
    description: operation.description,
    operationId: operation.operationId,
    ...(operation.parameters ? { parameters: operation.parameters.map(parameter) } : {}),
    ...(operation.body ? { requestBody: requestBody(operation.body, publish) } : {}),
    responses: {},
  };

  const rateLimitHeaders = operation.rateLimit !== undefined ? RATE_LIMIT_HEADERS : [];
  if (operation.ok) {
    built.responses["200"] = {
      description: operation.ok.description,
      headers: responseHeaders(["Cache-Control", ...rateLimitHeaders]),
      content: { "application/json": { schema: publish(operation.ok.schema) } },
    };
  }
  if (operation.redirect) {
    built.responses["303"] = {
      description: operation.redirect,
      headers: responseHeaders(["Location", "Cache-Control", ...rateLimitHeaders]),
    };
  }
  built.responses = sortedByKey({ ...built.responses, ...errorResponses(operation) });
  return built;
}

function parameter({ name, in: where, required, description, schema }: Parameter) {
  return { name, in: where, required, description, schema: jsonSchema(schema) };
}

function requestBody(
  body: NonNullable<OperationSpec["body"]>,
  publish: (named: NamedSchema) => JsonSchema,
): NonNullable<OperationObject["requestBody"]> {
  const content: NonNullable<OperationObject["requestBody"]>["content"] = {};
  for (const [mediaType, { schema, encoding }] of Object.entries(body.content) as [
    MediaType,
    BodyContent,
  ][]) {
    content[mediaType] = { schema: publish(schema), ...(encoding ? { encoding } : {}) };
  }
  return { ...(body.description ? { description: body.description } : {}), required: body.required, content };
}

function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const METHOD_ORDER: OperationSpec["method"][] = ["get", "post"];

export function buildOpenApiDocument(
  operations: OperationSpec[] = OPERATIONS,
  tags: Tag[] = TAGS,
): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = { Error: jsonSchema(errorBody) };
  const published = new Map<string, z.ZodType>([["Error", errorBody]]);
  const publish = ({ name, schema }: NamedSchema): JsonSchema => {
    const existing = published.get(name);
    if (existing && existing !== schema) throw new Error(`Two different schemas are named ${name}`);
    if (!existing) {
      published.set(name, schema);
      schemas[name] = jsonSchema(schema);
    }
    return ref(name);
  };

  const paths: OpenApiDocument["paths"] = {};
  for (const operation of operations) {
    const item = (paths[operation.path] ??= {});
    if (item[operation.method]) throw new Error(`${operation.method} ${operation.path} is listed twice`);
    if (!tags.some((tag) => tag.name === operation.tag)) throw new Error(`Unknown tag ${operation.tag}`);
    item[operation.method] = buildOperation(operation, publish);
  }
  for (const [path, item] of Object.entries(paths)) {
    paths[path] = Object.fromEntries(
      METHOD_ORDER.filter((method) => item[method]).map((method) => [method, item[method]]),
    );
  }

  return {
    openapi: "3.1.1",
    info: { title: "Studio intake API", version: packageJson.version, description: DESCRIPTION },
    servers: [
      { url: "/", description: "The site's own origin: the API is served by the same app as the pages." },
    ],
    tags,
    paths: sortedByKey(paths),
    components: { schemas: sortedByKey(schemas), headers: HEADERS },
  };
}
