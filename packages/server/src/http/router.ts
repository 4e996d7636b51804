import type { Endpoint } from "./endpoint.js";
import { parameters } from "./openapi-parameters.js";
import { compileBody } from "./validators.js";

/** An endpoint ready to serve: its declaration, its body's validator and the names of its query parameters. */
export interface Route {
  endpoint: Endpoint;
  /** Validates a parsed JSON body (undefined for an endpoint without one). */
  validate: ((body: unknown) => unknown) | undefined;
  /** The names of its path parameters, in path order. */
  paramNames: readonly string[];
  /** The names of its query parameters (none: the query string is not parsed). */
  queryNames: readonly string[];
}

/** The routes of one path template: by method, and the `Allow` header of a 405. */
interface PathNode {
  literal: Map<string, PathNode>;
  param: PathNode | undefined;
  methods: Map<string, Route> | undefined;
  allow: string;
}

/** What a path matched: its routes by method, the `Allow` of its 405, and its raw parameter values. */
export interface Match {
  methods: Map<string, Route>;
  allow: string;
  values: string[];
}

const node = (): PathNode => ({ literal: new Map(), param: undefined, methods: undefined, allow: "" });

/**
 * The route matcher of a list of endpoints: a tree of path segments, a literal segment before a
 * parameter. A parameter is one non-empty segment, like the `([^/]+)` of a pattern; nothing else
 * (a trailing slash, an empty segment) matches.
 */
export function createRouter(endpoints: readonly Endpoint[]) {
  const root = node();
  for (const endpoint of endpoints) {
    let at = root;
    const paramNames: string[] = [];
    for (const segment of endpoint.path.split("/").slice(1)) {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (name === undefined) {
        if (!at.literal.has(segment)) at.literal.set(segment, node());
        at = at.literal.get(segment)!;
      } else {
        paramNames.push(name);
        at = at.param ??= node();
      }
    }
    at.methods ??= new Map();
    if (at.methods.has(endpoint.method)) throw new Error(`${endpoint.method} ${endpoint.path} is declared twice`);
    at.methods.set(endpoint.method, { endpoint, validate: endpoint.body && compileBody(endpoint.body), paramNames, queryNames: queryNamesOf(endpoint) });
    at.allow = [...at.methods.keys()].join(", ");
  }

  /** The routes of a raw path (before percent-decoding); null when none matches. */
  return function match(path: string): Match | null {
    if (path.charCodeAt(0) !== 47 /* "/" */) return null;
    const segments = path.split("/");
    const values: string[] = [];
    const found = walk(root, segments, 1, values);
    return found && { methods: found.methods!, allow: found.allow, values };
  };
}

function walk(at: PathNode, segments: string[], index: number, values: string[]): PathNode | null {
  if (index === segments.length) return at.methods ? at : null;
  const segment = segments[index]!;
  const literal = at.literal.get(segment);
  if (literal) {
    const found = walk(literal, segments, index + 1, values);
    if (found) return found;
  }
  if (at.param && segment.length > 0) {
    values.push(segment);
    const found = walk(at.param, segments, index + 1, values);
    if (found) return found;
    values.pop();
  }
  return null;
}

function queryNamesOf(endpoint: Endpoint): string[] {
  return (endpoint.parameters ?? []).map((name) => parameters[name]).filter((parameter) => parameter.in === "query").map((parameter) => parameter.name);
}

const NO_QUERY: Record<string, string | undefined> = {};

/** A route's path parameters by name, percent-decoded. */
export function paramsOf(route: Route, values: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (let index = 0; index < values.length; index++) params[route.paramNames[index]!] = decodeSegment(values[index]!);
  return params;
}

/** The declared query parameters of a route: the first value of each; the query string is parsed only for a route that has some. */
export function queryOf(route: Route, search: string): Record<string, string | undefined> {
  if (route.queryNames.length === 0) return NO_QUERY;
  const parsed = new URLSearchParams(search);
  const values: Record<string, string | undefined> = {};
  for (const name of route.queryNames) values[name] = parsed.get(name) ?? undefined;
  return values;
}

/** A percent-decoded path segment; a malformed escape stays as it is (and will not be a valid id). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
