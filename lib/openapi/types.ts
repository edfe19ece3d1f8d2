import type { z } from "zod";
import type { ErrorCode } from "../http/errors";

/**
 * How an API operation is described for the OpenAPI document: what it takes and what it answers,
 * with the zod schemas the route itself uses. `document.ts` turns a list of these into OpenAPI 3.1.
 */

export type HttpMethod = "get" | "post";

export type MediaType = "application/json" | "multipart/form-data" | "application/x-www-form-urlencoded";

/** A schema published under `components.schemas` by this name, and referenced from operations. */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
}

export function named(name: string, schema: z.ZodType): NamedSchema {
  return { name, schema };
}

/** OpenAPI's Encoding Object, for the parts of a multipart or form-encoded body. */
export interface Encoding {
  contentType?: string;
  style?: "form";
  explode?: boolean;
}

export interface BodyContent {
  schema: NamedSchema;
  encoding?: Record<string, Encoding>;
}

/** A parameter in the URL: its query string, or a `{name}` segment of the path (`[name]` under `app/`). */
export interface Parameter {
  name: string;
  in: "query" | "path";
  /** Path parameters always are. */
  required: boolean;
  description: string;
  schema: z.ZodType;
}

export interface OperationSpec {
  method: HttpMethod;
  /** The route's URL path, as the file under `app/` serves it. */
  path: `/api/${string}`;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  parameters?: Parameter[];
  body?: {
    required: boolean;
    description?: string;
    /** The largest body accepted, in bytes: past it, 413 `payload_too_large`. */
    limit?: number;
    content: Partial<Record<MediaType, BodyContent>>;
  };
  /** The 200 answer's JSON body. */
  ok?: { description: string; schema: NamedSchema };
  /** When and where the operation answers `303 See Other` (a browser's own form post). */
  redirect?: string;
  /** The operation's rate-limit budget, in words. Adds 429 and the `RateLimit-*` headers. */
  rateLimit?: string;
  /** Every error code the operation can answer with, besides `rate_limited` (see `rateLimit`). */
  errors: readonly Exclude<ErrorCode, "rate_limited">[];
  /** What an error means for this operation, where the general wording is not enough. */
  when?: Partial<Record<ErrorCode, string>>;
  /** A 422's `fields`, as this operation would answer it. */
  fieldsExample?: Record<string, string>;
}

export interface Tag {
  name: string;
  description: string;
}
