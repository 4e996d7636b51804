import { createRowCodec } from "@parley/core/storage-rows";

// Rows as better-sqlite3 returns them map through the codec both SQL adapters share
// (@parley/core/storage-rows, with the row types and column lists), in SQLite's dialect: it
// cannot bind a boolean, so every boolean goes in as 0/1 through `toFlag`; text is stored as it is.

/** SQLite has no boolean: 1 for true, 0 for false. */
export const toFlag = (value: boolean): number => (value ? 1 : 0);

const asWritten = (text: string) => text;

/** The shared row codec in SQLite's dialect. */
export const sqliteRows = createRowCodec({ flag: toFlag, toText: asWritten, fromText: asWritten });
