import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { document, resolve, type ResolvedResponse } from "./openapi-support.js";

// docs/api.md is the contract for people: it must name every route docs/openapi.json (and so
// the router) has, and quote the operator API's refusal texts as the code writes them.

const guide = readFileSync(fileURLToPath(new URL("../../../docs/api.md", import.meta.url)), "utf8");
/** A route with its parameters unnamed: the guide writes `{id}` where the document has `{chatbot_id}`. */
const unnamed = (text: string) => text.replace(/\{\w+\}/g, "{}");

describe("docs/api.md", () => {
  it("names every route and method of docs/openapi.json", () => {
    const named = unnamed(guide);
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const method of Object.keys(methods)) {
        const route = `${method.toUpperCase()} ${unnamed(path)}`;
        // In a table row or a heading: `GET /path`, or `GET/POST /path` for several methods.
        const pattern = new RegExp(`\`[A-Z/]*\\b${method.toUpperCase()}\\b[A-Z/]* ${unnamed(path).replace(/[{}]/g, "\\$&")}[\` ?]`);
        expect(pattern.test(named), `docs/api.md names ${route}`).toBe(true);
      }
    }
  });

  it("quotes every 403 and 404 text of the operator API exactly", () => {
    const texts = new Set<string>();
    for (const [path, methods] of Object.entries(document.paths)) {
      if (!path.startsWith("/v1/admin/")) continue;
      for (const operation of Object.values(methods)) {
        for (const status of ["403", "404"]) {
          const raw = operation.responses[status];
          const response = raw === undefined ? undefined : (resolve(raw) as ResolvedResponse);
          for (const example of Object.values(response?.content?.["application/json"]?.examples ?? {})) texts.add(example.value.detail!);
        }
      }
    }
    expect(texts.size).toBe(9);
    for (const text of texts) expect(guide, `docs/api.md quotes "${text}"`).toContain(text);
  });
});
