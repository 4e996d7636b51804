// Writes docs/openapi.json from the schemas the server validates with: `npm run openapi`.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderOpenApiDocument } from "../src/http/openapi.js";

const path = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url));
writeFileSync(path, renderOpenApiDocument());
process.stdout.write(`wrote ${path}\n`);
