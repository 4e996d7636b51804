import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "vitest";
import { VIEWS } from "../src/http/views.js";
import type { call } from "./harness.js";

const DOCUMENT_PATH = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url));

/** docs/openapi.json as committed. */
export const committedText = readFileSync(DOCUMENT_PATH, "utf8");

export interface Operation {
  operationId?: string;
  parameters?: unknown[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, unknown>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
}
export interface ResolvedResponse {
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: unknown; examples?: Record<string, { value: { detail?: string } }> }>;
}

export const document = JSON.parse(committedText) as OpenApiDocument;

/** A node of the document with every `#/...` reference replaced by its target (the document has no cycles). */
export function resolve(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(resolve);
  if (typeof node !== "object" || node === null) return node;
  const reference = (node as { $ref?: unknown }).$ref;
  if (typeof reference === "string") {
    const target = reference
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((parent, key) => (parent as Record<string, unknown> | undefined)?.[key], document);
    if (target === undefined) throw new Error(`unresolved reference ${reference}`);
    return resolve(target);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolve(value)]));
}

/** The validator of the OpenAPI 3.1 dialect (JSON Schema 2020-12). */
export const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addFormat("uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);

/** A validator per view (every one that stands alone, without a `$ref`), for tests that check real answers against the document. */
export const viewValidators = Object.fromEntries(
  Object.entries(VIEWS)
    .filter(([, schema]) => !JSON.stringify(schema).includes('"$ref"'))
    .map(([name, schema]) => [name, ajv.compile(schema)]),
) as Record<Exclude<keyof typeof VIEWS, "ChatbotList">, ReturnType<typeof ajv.compile>>;

/** The validators of the spec's answers. */
export const responseValidators = { chat: viewValidators.ChatResponse, summary: viewValidators.ChatbotSummary, detail: viewValidators.ChatbotDetail, error: viewValidators.Error };

/** Checks one real response against its operation's documented response: body schema, headers, and the detail among the examples. */
export function expectDocumented(path: string, method: string, response: Awaited<ReturnType<typeof call>>) {
  const where = `${method.toUpperCase()} ${path} → ${response.status}`;
  const documented = document.paths[path]?.[method]?.responses[String(response.status)];
  expect(documented, `${where} is documented`).toBeDefined();
  const { headers, content } = resolve(documented) as ResolvedResponse;
  for (const name of Object.keys(headers ?? {})) expect(response.headers.get(name), `${where} sends ${name}`).not.toBeNull();
  if (content === undefined) {
    expect(response.text, `${where} has no body`).toBe("");
    return;
  }
  expect(response.headers.get("content-type"), where).toBe("application/json; charset=utf-8");
  const validate = ajv.compile(content["application/json"]!.schema as object);
  expect(validate(response.json), `${where}: ${ajv.errorsText(validate.errors)} in ${response.text}`).toBe(true);
  const detail = (response.json as { detail?: unknown }).detail;
  if (typeof detail === "string") {
    // Numbers (limits, dates) follow the configuration; the words must be the documented ones.
    const shape = (text: string) => text.replace(/\d+/g, "N");
    const examples = Object.values(content["application/json"]!.examples ?? {}).map((example) => shape(example.value.detail ?? ""));
    expect(examples, `${where}: "${detail}" is one of the documented texts`).toContain(shape(detail));
    expect(responseValidators.error(response.json)).toBe(true);
  }
}
