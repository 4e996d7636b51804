import { runSearchIndexContract } from "@parley/core/contract";
import type { SearchIndex } from "@parley/core";
import type { Database } from "better-sqlite3";
import { openDatabase } from "./database.js";
import { createSqliteSearchIndex } from "./sqlite-search-index.js";

const databases = new WeakMap<SearchIndex, Database>();

runSearchIndexContract({
  create: () => {
    const database = openDatabase({ path: ":memory:" });
    const index = createSqliteSearchIndex({ database });
    databases.set(index, database);
    return index;
  },
  dispose: (index) => {
    databases.get(index)?.close();
  },
});
