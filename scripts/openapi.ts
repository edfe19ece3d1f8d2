/**
 * `npm run openapi`: writes the API's OpenAPI 3.1 document, `docs/openapi.json`, from the operation
 * list in lib/openapi and the zod schemas the routes use. Run it after changing a route or a schema;
 * a unit test fails while the committed file differs from what this writes.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { OPENAPI_FILE, renderOpenApiDocument } from "../lib/openapi";

const root = process.cwd();
void renderOpenApiDocument(root)
  .then((text) => writeFile(join(root, OPENAPI_FILE), text))
  .then(() => console.log(`Wrote ${OPENAPI_FILE}`));
