import { join } from "node:path";
import { buildOpenApiDocument } from "./document";

export { buildOpenApiDocument } from "./document";
export type { OpenApiDocument, OperationObject, ResponseObject } from "./document";
export { OPERATIONS, TAGS } from "./operations";
export type { OperationSpec } from "./types";

/** Where the document is committed, relative to the project's root. */
export const OPENAPI_FILE = "docs/openapi.json";

/**
 * The document as it is committed: JSON formatted by prettier with the project's settings (so
 * `prettier --check` agrees), ending in a newline. `npm run openapi` writes it; a unit test
 * compares the committed file with it.
 */
export async function renderOpenApiDocument(root: string): Promise<string> {
  const prettier = await import("prettier");
  const file = join(root, OPENAPI_FILE);
  const options = await prettier.resolveConfig(file);
  return prettier.format(JSON.stringify(buildOpenApiDocument(), null, 2), { ...options, filepath: file });
}
