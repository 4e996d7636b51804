import { invalidRequest } from "../errors.js";

/** What a list route takes: `limit` (1–100, default 50) and an opaque `cursor` (docs/design.md §9). */
export interface PageRequest {
  limit?: unknown;
  cursor?: unknown;
}

/** One page of a list: `{"data": [...], "next_cursor": string | null}`. */
export interface Page<Item> {
  data: Item[];
  next_cursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** The page size asked for: a whole number from 1 to 100, as a number or as query text. */
export function pageSize(request: PageRequest): number {
  const { limit } = request;
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  const value = typeof limit === "string" && /^\d{1,3}$/.test(limit) ? Number(limit) : limit;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    throw invalidRequest(`limit: must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  return value;
}

/**
 * A cursor is the position of the last item of a page, for one list only: base64url of
 * `[list, ...values]`. Keyset positions stay correct while new rows arrive at the top.
 */
export function encodeCursor(list: string, values: (string | number)[]): string {
  return Buffer.from(JSON.stringify([list, ...values])).toString("base64url");
}

/** The values of a cursor of `list`, checked against their expected types; 422 for anything else. */
export function decodeCursor(list: string, cursor: unknown, types: ("string" | "number")[]): (string | number)[] | undefined {
  if (cursor === undefined) return undefined;
  const refuse = () => invalidRequest("cursor: must be a cursor returned by this list");
  if (typeof cursor !== "string" || cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(decoded) || decoded[0] !== list || decoded.length !== types.length + 1) throw refuse();
  const values = decoded.slice(1) as unknown[];
  if (!values.every((value, index) => typeof value === types[index] && (typeof value !== "number" || Number.isSafeInteger(value)))) throw refuse();
  return values as (string | number)[];
}

/** A page of `size` from `rows` read with one extra row, which tells whether another page follows. */
export function pageOf<Row, Item>(rows: Row[], size: number, view: (row: Row) => Item, cursorOf: (row: Row) => string): Page<Item> {
  const shown = rows.slice(0, size);
  return { data: shown.map(view), next_cursor: rows.length > size ? cursorOf(shown.at(-1)!) : null };
}

/**
 * A page of a list held whole in memory (a user's chatbots, keys, webhooks: few rows, newest
 * first), by position after the cursor's row. The cursor also holds that row's creation time,
 * so a walk goes on with the older rows when its row was deleted meanwhile (only a row created
 * in the very same microsecond as the deleted one could then be missed).
 */
export function pageOfAll<Row extends { id: string; createdAt: number }, Item>(list: string, rows: Row[], request: PageRequest, view: (row: Row) => Item): Page<Item> {
  const size = pageSize(request);
  const after = decodeCursor(list, request.cursor, ["number", "string"]);
  let start = 0;
  if (after !== undefined) {
    const [createdAt, id] = after as [number, string];
    const found = rows.findIndex((row) => row.id === id);
    start = found !== -1 ? found + 1 : rows.findIndex((row) => row.createdAt < createdAt);
    if (start === -1) start = rows.length;
  }
  return pageOf(rows.slice(start, start + size + 1), size, view, (row) => encodeCursor(list, [row.createdAt, row.id]));
}
