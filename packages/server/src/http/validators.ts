import { Ajv, type ErrorObject } from "ajv";
import type { BodyDeclaration } from "./endpoint.js";
import { HttpError } from "./http-error.js";

/** The one ajv instance of the server: every body validator, and the views' validators of the tests. */
export const ajv = new Ajv({ allErrors: false, strict: true });
ajv.addFormat("uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);

/** The validator of a declared body: the body as it passes, or a 422 naming the field and the problem. */
export function compileBody(declaration: BodyDeclaration): (body: unknown) => unknown {
  const validate = ajv.compile(declaration.schema as object);
  const describe = declaration.describe ?? describeError;
  const prepare = declaration.prepare;
  return (body) => {
    const prepared = prepare === undefined ? body : prepare(body);
    if (!validate(prepared)) throw new HttpError(422, describe(validate.errors![0]!));
    return prepared;
  };
}

/** The 422 detail of a schema error: `field: problem`. */
export function describeError(error: ErrorObject): string {
  const path = error.instancePath.slice(1).replaceAll("/", ".");
  if (error.keyword === "required") return `${String(error.params.missingProperty)}: is required`;
  if (path === "" && error.keyword === "type") return "body: must be a JSON object";
  if (path === "" && error.keyword === "minProperties") return "body: must hold at least one field to change";
  const params = error.params as { limit?: number; type?: string; allowedValues?: unknown[] };
  switch (error.keyword) {
    case "type":
      return `${path}: must be ${params.type === "integer" ? "a whole number" : `a${params.type === "array" || params.type === "object" ? "n" : ""} ${params.type}`}`;
    case "enum":
      return `${path}: must be one of ${params.allowedValues!.join(", ")}`;
    case "minLength":
      return `${path}: must be a non-empty string`;
    case "maxLength":
      return `${path}: must be at most ${params.limit} characters`;
    case "minimum":
      return `${path}: must be at least ${params.limit}`;
    case "maximum":
      return `${path}: must be at most ${params.limit}`;
    case "maxItems":
      return `${path}: must hold at most ${params.limit} items`;
    default:
      return `${path || "body"}: is not valid`;
  }
}
