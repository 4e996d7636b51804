import type { Database } from "better-sqlite3";

/** Entries each of the cache's maps holds at most, unless `readCacheEntries` says otherwise. */
export const DEFAULT_READ_CACHE_ENTRIES = 50_000;

/** One map of the read cache: values by key, each loaded once and kept until the database changes. */
export interface ReadCacheMap<Value> {
  /** The cached value for `key`, or `load()`'s (cached unless null: a miss is never remembered). */
  get(key: string, load: () => Value | null): Value | null;
  /** How many entries the map holds now (for tests of the bound). */
  readonly size: number;
}

/** A cache of rows that are read on every request and rarely written, never stale. */
export interface ReadCache {
  /** A new map, emptied with every other one whenever the database may have changed. */
  map<Value>(): ReadCacheMap<Value>;
  /**
   * Runs a write step that touches none of the cached tables, so the cache survives it. Any
   * other write on this connection empties the cache at the next read.
   */
  keepingCache<Result>(step: () => Result): Result;
}

/**
 * A per-connection cache for the reads behind every request (the API key and its owner, a
 * chatbot, an owner's list of chatbots). It is never stale: before every read it asks SQLite
 * whether the database changed, and empties itself when
 * - another connection committed (any process, e.g. the `parley` CLI): `PRAGMA data_version`
 *   moves; or
 * - this connection changed rows (`total_changes()` moves) in any step other than those run
 *   through `keepingCache` (the chat's own writes, which touch no cached table).
 * The check costs two prepared one-row statements, about 1.5 µs. Each map keeps at most
 * `maxEntries` values and drops the oldest first; misses are not remembered, so unknown keys
 * cannot push out known ones.
 */
export function createReadCache(database: Database, maxEntries: number = DEFAULT_READ_CACHE_ENTRIES): ReadCache {
  if (!Number.isInteger(maxEntries) || maxEntries < 0) throw new RangeError(`readCacheEntries must be a whole number (got ${maxEntries}).`);
  const dataVersion = database.prepare("PRAGMA data_version").pluck();
  const totalChanges = database.prepare("SELECT total_changes()").pluck();
  const maps: Map<string, unknown>[] = [];
  let seenVersion = dataVersion.get();
  let seenChanges = totalChanges.get();

  const forgetIfChanged = () => {
    const version = dataVersion.get();
    const changes = totalChanges.get();
    if (version === seenVersion && changes === seenChanges) return;
    for (const entries of maps) entries.clear();
    seenVersion = version;
    seenChanges = changes;
  };

  return {
    map<Value>(): ReadCacheMap<Value> {
      const entries = new Map<string, Value>();
      maps.push(entries);
      return {
        get(key, load) {
          forgetIfChanged();
          const cached = entries.get(key);
          if (cached !== undefined) return cached;
          const value = load();
          if (value === null || maxEntries === 0) return value;
          if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
          entries.set(key, value);
          return value;
        },
        get size() {
          return entries.size;
        },
      };
    },
    keepingCache(step) {
      const before = totalChanges.get();
      try {
        return step();
      } finally {
        // Only when nothing else changed since the last check: otherwise that earlier change
        // must still empty the cache at the next read.
        if (before === seenChanges) seenChanges = totalChanges.get();
      }
    },
  };
}
