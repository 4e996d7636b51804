import { readFileSync } from "node:fs";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import { expect, it } from "vitest";

// The console's API types are generated, never written by hand (CONVENTIONS, "The operator
// side"): this fails when docs/openapi.json changed and `npm run api-types -w packages/console`
// was not run, so the console cannot silently drift from the server's contract.
it("schema.d.ts is what openapi-typescript makes of docs/openapi.json today", async () => {
  const generated = COMMENT_HEADER + astToString(await openapiTS(new URL("../../../docs/openapi.json", import.meta.url)));
  expect(readFileSync(new URL("../src/api/schema.d.ts", import.meta.url), "utf8")).toBe(generated);
});
