import { createRowCodec } from "@parley/core/storage-rows";
import { fromText, toText } from "./postgres-text.js";

// Rows as `pg` returns them (bigints read as numbers by the pool's type parser,
// postgres-database.ts) map through the codec both SQL adapters share
// (@parley/core/storage-rows, with the row types and column lists), in PostgreSQL's dialect:
// booleans as booleans, and text a user wrote through toText/fromText (TEXT cannot hold NUL).

/** The shared row codec in PostgreSQL's dialect. */
export const postgresRows = createRowCodec({ flag: (value: boolean) => value, toText, fromText });
