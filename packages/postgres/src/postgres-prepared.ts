// Statements PostgreSQL parses and plans once per connection. node-postgres prepares a query on
// the server only when it has a name; without one, each execution is parsed, analysed and
// planned again, which cost most of a chat's PostgreSQL CPU (docs/scaling.md, "PostgreSQL's CPU
// per chat"). The names come from code, so a connection holds a bounded set of them.

/** A query text with the name under which each connection prepares it once. */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/** One statement prepared under `name` (unique: node-postgres refuses one name for two texts). */
export const preparedStatement = (name: string, text: string): PreparedStatement => ({ name, text });

/** Each statement of `statements` prepared as `<prefix>_<key>`. */
export function preparedStatements<T extends Record<string, string>>(prefix: string, statements: T): { readonly [K in keyof T]: PreparedStatement } {
  return Object.fromEntries(Object.entries(statements).map(([key, text]) => [key, preparedStatement(`parley_${prefix}_${key}`, text)])) as {
    readonly [K in keyof T]: PreparedStatement;
  };
}
