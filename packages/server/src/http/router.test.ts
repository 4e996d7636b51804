import { describe, expect, it } from "vitest";
import { defineEndpoint, key, ok, type Endpoint, type Method } from "./endpoint.js";
import { ENDPOINTS } from "./endpoints/index.js";
import { createRouter } from "./router.js";

const declare = (method: Method, path: string): Endpoint =>
  defineEndpoint({ method, path, operationId: `${method}${path}`, summary: "", description: "", tag: { name: "", description: "" }, access: key("admin"), success: { status: 204, description: "" }, handle: async () => ok(null) });

describe("createRouter", () => {
  const match = createRouter([
    declare("GET", "/v1/things"),
    declare("POST", "/v1/things"),
    declare("GET", "/v1/things/{thing_id}"),
    declare("DELETE", "/v1/things/{thing_id}"),
    declare("PATCH", "/v1/things/{thing_id}"),
    declare("GET", "/v1/things/search"),
    declare("GET", "/v1/things/{thing_id}/parts/{part_id}"),
  ]);

  it("finds a route by literal segments and names its parameters in path order", () => {
    const found = match("/v1/things/a%20b/parts/7")!;
    expect(found.values).toEqual(["a%20b", "7"]);
    expect(found.methods.get("GET")!.paramNames).toEqual(["thing_id", "part_id"]);
  });

  it("prefers a literal segment to a parameter, and falls back to the parameter when the literal leads nowhere", () => {
    expect(match("/v1/things/search")!.methods.get("GET")!.endpoint.path).toBe("/v1/things/search");
    expect(match("/v1/things/search")!.values).toEqual([]);
    expect(match("/v1/things/search/parts/1")!.values).toEqual(["search", "1"]);
  });

  it("gives a 405's Allow in declaration order", () => {
    expect(match("/v1/things")!.allow).toBe("GET, POST");
    expect(match("/v1/things/x")!.allow).toBe("GET, DELETE, PATCH");
  });

  it("matches nothing for a trailing slash, an empty or extra segment, a prefix, or a path without its leading slash", () => {
    for (const path of ["/v1/things/", "/v1//things", "/v1/things//parts/1", "/v1/things/x/parts", "/v1", "/", "", "v1/things", "http://host/v1/things", "/v1/things/x/parts/1/more"]) {
      expect(match(path), path).toBeNull();
    }
  });

  it("refuses a method and path declared twice", () => {
    expect(() => createRouter([declare("GET", "/a"), declare("GET", "/a")])).toThrow("GET /a is declared twice");
  });

  it("routes every declared endpoint of the server to itself", () => {
    const table = createRouter(ENDPOINTS);
    for (const endpoint of ENDPOINTS) {
      const path = endpoint.path.replace(/\{\w+\}/g, "x");
      expect(table(path)?.methods.get(endpoint.method)?.endpoint, `${endpoint.method} ${endpoint.path}`).toBe(endpoint);
    }
  });
});
