// The requests the fuzz sends: fast-check arbitraries over every route of the server's own table
// (ROUTE_TEMPLATES), with hostile paths, methods, headers and bodies, serialised to raw bytes.
import fc from "fast-check";
import { ROUTE_TEMPLATES, WIDGET_ROUTE_TEMPLATES } from "../../src/http/endpoints/index.js";

/** The ids and keys of the seeded world the requests point at. */
export interface FuzzWorld {
  /** `valid` is a chat key, `admin` an admin-scoped key of the same user. */
  keys: { valid: string; admin: string; revoked: string; otherUser: string };
  /** Visitor tokens of the active chatbot's widget, of a paused one's, and of another chatbot's. */
  visitors: { active: string; paused: string; foreign: string };
  /** A message of the active chatbot's visitor session (a model reply it may rate). */
  visitorReply: string;
  bots: { active: string; paused: string; deleted: string; foreign: string };
  /** A session a human agent has taken over (chat → 202). */
  takeoverSession: string;
}

/** One request, before serialisation. */
export interface FuzzRequest {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body: Buffer | null;
  chunked: boolean;
  chunkSize: number;
  /** A byte of the serialised request replaced, to reach the parser's refusals. */
  flip: { at: number; byte: number } | null;
}

/** Every method and template to cover: the route table's, plus the health check outside it. */
export const FUZZED_ROUTES = [
  ...ROUTE_TEMPLATES,
  // The widget's public routes: no key, a visitor token (docs/design.md §14).
  ...WIDGET_ROUTE_TEMPLATES,
  // The widget's files: its loader, a chatbot's chat frame and its demo page.
  { method: "GET", path: "/widget.js" },
  { method: "GET", path: "/widget/{chatbot_id}" },
  { method: "GET", path: "/widget/{chatbot_id}/demo" },
  { method: "GET", path: "/healthz" },
  // The console's static routes: the page, with and without its slash, and its assets' folder.
  { method: "GET", path: "/console" },
  { method: "GET", path: "/console/" },
  { method: "GET", path: "/console/assets/([^/]+)" },
];

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "PROPFIND", "PURGE", "SEARCH", "LOCK", "MKCOL", "COPY", "QUERY"];

/** Strings that have broken text handling somewhere: NUL, lone surrogates, bidi marks, FTS5 and SQL syntax, sizes at the limits. */
const NASTY_TEXT = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "x\udc00y",
  "\u202Eevil\u202C",
  "\u200F\u200E\u061C",
  "\ufeff",
  "\u0301\u0301\u0301",
  "😀".repeat(32_000),
  "a".repeat(32_000),
  "a".repeat(32_001),
  "   ",
  "\t\n\r",
  '"',
  "NEAR(a b, 2)",
  "a* OR b AND NOT c",
  "^start col:value {a b} (",
  "'; DROP TABLE messages; --",
  "%_\\",
  "\u{10FFFF}",
  "𝕳𝖊𝖑𝖑𝖔",
  "__proto__",
  "constructor",
  "1e400",
];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));

/** Text for messages, session ids and header values: random units mixed with the nasty ones. */
export const textArbitrary = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_TEXT) },
  { weight: 2, arbitrary: fc.array(fc.oneof(fc.constantFrom(...NASTY_TEXT.slice(0, 9), ...NASTY_TEXT.slice(12)), fc.string({ maxLength: 8 }), loneSurrogate), { maxLength: 6 }).map((parts) => parts.join(" ")) },
);

function idArbitrary(world: FuzzWorld) {
  return fc.oneof(
    { weight: 16, arbitrary: fc.constant(world.bots.active) },
    { weight: 4, arbitrary: fc.constantFrom(world.bots.paused, world.bots.deleted, world.bots.foreign, world.bots.active.toUpperCase()) },
    { weight: 2, arbitrary: fc.uuid().map(String) },
    { weight: 1, arbitrary: fc.constant(world.visitorReply) },
    { weight: 3, arbitrary: textArbitrary.map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, "")).slice(0, 4_000)) },
    { weight: 2, arbitrary: fc.constantFrom("%00", "%ZZ", "%2F", "%2e%2e", "..", ".", "%F0%9F", "%C0%AF", "a".repeat(9_000), "prl_" + "A".repeat(43)) },
  );
}

function pathArbitrary(world: FuzzWorld) {
  const fromTemplate = fc.tuple(fc.constantFrom(...FUZZED_ROUTES), fc.array(idArbitrary(world), { minLength: 4, maxLength: 4 })).map(([route, ids]) => ({
    method: route.method,
    // A parameter is `{name}` or, in a table written as patterns, `([^/]+)`.
    path: route.path.replace(/\{[a-z_]+\}|\(\[\^\/\]\+\)/g, () => ids.shift() ?? ""),
  }));
  const same = (path: string) => path;
  const twist = fc.oneof(
    { weight: 10, arbitrary: fc.constant(same) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
    (path: string) => `${path}/`,
    (path: string) => path.toUpperCase(),
    (path: string) => path.replace("/v1/", "//v1//"),
    (path: string) => `/v2${path.slice(3)}`,
    (path: string) => `${path}/../chatbots`,
    (path: string) => `${path}%00`,
      ),
    },
  );
  const random = fc.array(fc.oneof(fc.string({ maxLength: 12 }).map(encodeURIComponent), fc.constantFrom("v1", "chatbots", "chat", "admin", "console")), { maxLength: 6 }).map((segments) => ({
    method: "GET",
    path: `/${segments.join("/")}`,
  }));
  return fc.oneof({ weight: 8, arbitrary: fc.tuple(fromTemplate, twist).map(([route, change]) => ({ method: route.method, path: change(route.path) })) }, { weight: 1, arbitrary: random });
}

const queryArbitrary = fc.option(
  fc
    .array(fc.tuple(fc.constantFrom("limit", "cursor", "after", "status", "chatbot_id", "x", "__proto__"), fc.oneof(fc.integer().map(String), textArbitrary, fc.constant("9".repeat(400)))), { maxLength: 4 })
    .map((pairs) => `?${pairs.map(([name, value]) => `${name}=${encodeURIComponent(value.replace(/[\ud800-\udfff]/g, "\ufffd")).slice(0, 2_000)}`).join("&")}`),
  { freq: 3 },
);

function authArbitrary(world: FuzzWorld): fc.Arbitrary<Array<[string, string]>> {
  const { valid, admin, revoked, otherUser } = world.keys;
  const visitors = world.visitors;
  const one = (value: string): Array<[string, string]> => [["Authorization", value]];
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(one(`Bearer ${valid}`)) },
    // The operator API's routes are most of the table: an admin key reaches their handlers.
    { weight: 8, arbitrary: fc.constant(one(`Bearer ${admin}`)) },
    { weight: 1, arbitrary: fc.constant([] as Array<[string, string]>) },
    // A widget visitor's token: of the active chatbot, a paused one's, another's; altered.
    { weight: 4, arbitrary: fc.constant(one(`Bearer ${visitors.active}`)) },
    { weight: 2, arbitrary: fc.constantFrom(one(`Bearer ${visitors.paused}`), one(`Bearer ${visitors.foreign}`), one(`Bearer ${visitors.active.slice(0, -1)}`), one(`Bearer v1.${"A".repeat(900)}.x`)) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        one("Bearer"),
        one(`bearer    ${valid}   `),
        one(`Bearer ${valid}x`),
        one(`Bearer ${revoked}`),
        one(`Bearer ${otherUser}`),
        one("Basic dXNlcjpwYXNz"),
        one(`Bearer ${"A".repeat(12_000)}`),
        one(`Bearer prl_${"é".repeat(20)}`),
        [["Authorization", `Bearer ${valid}`], ["Authorization", `Bearer ${revoked}`]],
        [["Authorization", `Bearer ${revoked}`], ["Authorization", `Bearer ${valid}`]],
      ),
    },
  );
}

const HEADER_NAMES = ["X-Request-Id", "Accept", "User-Agent", "Cookie", "X-Forwarded-For", "Accept-Encoding", "Content-Encoding", "Origin", "Range", "If-None-Match", "X-Fuzz"];

const headerValueArbitrary = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "grapheme-ascii", maxLength: 60 }) },
  { weight: 2, arbitrary: textArbitrary.map((text) => text.replace(/[\r\n]/g, " ").slice(0, 200)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 12_000 }).map((size) => "h".repeat(size)) },
);

const contentTypeArbitrary = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Array<[string, string]>>([["Content-Type", "application/json"]]) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<Array<[string, string]>>(
      [],
      [["Content-Type", "application/json; charset=utf-8"]],
      [["Content-Type", "APPLICATION/JSON ; charset=UTF-16"]],
      [["Content-Type", "text/plain"]],
      [["Content-Type", "multipart/form-data; boundary=x"]],
      [["Content-Type", "application/jsoné"]],
      [["Content-Type", "application/json"], ["Content-Type", "text/plain"]],
    ),
  },
);

const jsonText = (value: unknown) => JSON.stringify(value) ?? "null";

function bodyArbitrary(world: FuzzWorld): fc.Arbitrary<Buffer | null> {
  const session = fc.oneof(
    { weight: 4, arbitrary: textArbitrary },
    { weight: 2, arbitrary: fc.constant(world.takeoverSession) },
    { weight: 1, arbitrary: fc.constantFrom("s".repeat(255), "s".repeat(256), 42, null, "") },
  );
  const chat = fc.record({ message: textArbitrary, session_id: session }, { requiredKeys: ["message"] }).map((body) => Buffer.from(jsonText(body)));
  // The widget's bodies: a session's identity, a rating.
  const widget = fc.oneof(
    fc.record({ user_id: fc.oneof(textArbitrary, fc.jsonValue({ maxDepth: 1 })), user_hash: fc.oneof(textArbitrary, fc.constant("0".repeat(64))) }, { requiredKeys: [] }),
    fc.record({ rating: fc.oneof(fc.constantFrom("up", "down"), textArbitrary), comment: fc.oneof(textArbitrary, fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] }),
  ).map((body) => Buffer.from(jsonText(body)));
  const wrongTypes = fc.record({ message: fc.jsonValue({ maxDepth: 3 }), session_id: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }).map((body) => Buffer.from(jsonText(body)));
  const nested = fc.integer({ min: 1_000, max: 200_000 }).map((depth) => Buffer.from(`{"message":${"[".repeat(depth)}${"]".repeat(depth)}}`));
  const raw = fc.constantFrom(
    '{"message": 1e400, "session_id": 123456789012345678901234567890}',
    '{"message": "\\ud800", "session_id": "\\udfff"}',
    '{"message": "\\u0000", "__proto__": {"admin": true}}',
    '{"message": "hi", "message": 5}',
    '\ufeff{"message": "bom"}',
    "{",
    "",
    "null",
    "[]",
    '"just a string"',
    '{"message": "unterminated',
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 10, arbitrary: chat },
    { weight: 3, arbitrary: widget },
    { weight: 3, arbitrary: wrongTypes },
    { weight: 1, arbitrary: nested },
    { weight: 3, arbitrary: raw.map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constantFrom(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), Buffer.from([0xc0, 0xaf])) },
    // Past the 1 MiB limit (413), on its own so the widget's bodies beside the chat's do not make it rare.
    { weight: 1, arbitrary: fc.constant(Buffer.from(`{"message":"${"x".repeat(1024 * 1024)}"}`)) },
  );
}

/** A whole request against the seeded world. */
export function requestArbitrary(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const method = (routeMethod: string) =>
    fc.oneof(
      { weight: 12, arbitrary: fc.constant(routeMethod) },
      { weight: 3, arbitrary: fc.constantFrom(...METHODS) },
      { weight: 1, arbitrary: fc.constantFrom("get", "FROB", "G\u00c9T", "M-SEARCH", "CONNECT") },
    );
  return fc
    .record({
      route: pathArbitrary(world),
      query: queryArbitrary,
      auth: authArbitrary(world),
      contentType: contentTypeArbitrary,
      extra: fc.array(fc.tuple(fc.constantFrom(...HEADER_NAMES), headerValueArbitrary), { maxLength: 4 }),
      body: bodyArbitrary(world),
      chunked: fc.boolean(),
      chunkSize: fc.integer({ min: 1, max: 70_000 }),
      flip: fc.oneof({ weight: 15, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }) }),
    })
    .chain((parts) =>
      method(parts.route.method).map((chosen) => ({
        method: chosen,
        target: `${parts.route.path}${parts.query ?? ""}`,
        headers: [...parts.auth, ...(parts.body === null ? [] : parts.contentType), ...parts.extra],
        body: parts.body,
        chunked: parts.chunked,
        chunkSize: parts.chunkSize,
        flip: parts.flip,
      })),
    );
}

/** The request's bytes on the wire. */
export function serialise(request: FuzzRequest): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`, "Host: fuzz.test", ...request.headers.map(([name, value]) => `${name}: ${value}`)];
  const body = request.body;
  if (body !== null && request.chunked) lines.push("Transfer-Encoding: chunked");
  else if (body !== null) lines.push(`Content-Length: ${body.length}`);
  const parts: Buffer[] = [Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "utf8")];
  if (body !== null && request.chunked) {
    // Tiny chunks only on small bodies: 1 MiB in 1-byte chunks takes the parser longer than the target's request timeout.
    const chunkSize = body.length > 65_536 ? Math.max(request.chunkSize, 4_096) : request.chunkSize;
    for (let start = 0; start < body.length; start += chunkSize) {
      const piece = body.subarray(start, start + chunkSize);
      parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
    }
    parts.push(Buffer.from("0\r\n\r\n"));
  } else if (body !== null) {
    parts.push(body);
  }
  const bytes = Buffer.concat(parts);
  if (request.flip !== null && bytes.length > 0) bytes[request.flip.at % Math.min(bytes.length, 600)] = request.flip.byte;
  return bytes;
}

/** A short description of a request for a failure report (no megabytes of body). */
export function describeRequest(request: FuzzRequest): string {
  const body = request.body === null ? "no body" : `${request.body.length} bytes${request.chunked ? ` chunked by ${request.chunkSize}` : ""}: ${request.body.subarray(0, 120).toString("utf8")}`;
  const headers = request.headers.map(([name, value]) => `${name}: ${value.length > 80 ? `${value.slice(0, 80)}…(${value.length})` : value}`).join(" | ");
  return `${request.method} ${request.target.slice(0, 300)} [${headers}] ${body}${request.flip === null ? "" : ` flip ${JSON.stringify(request.flip)}`}`;
}
