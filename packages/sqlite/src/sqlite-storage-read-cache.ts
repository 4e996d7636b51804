import type { Database } from "better-sqlite3";

/** How many entries the storage's cache maps hold at most, unless its options say otherwise. */
export const DEFAULT_READ_CACHE_LIMITS = {
  /** API keys with their owner: a few hundred bytes each; enough for 20,000 requests/s each on its own key. */
  apiKeys: 50_000,
  /** Chatbots by id, and lists of chatbots by owner: a chatbot carries its system prompt, of any length. */
  chatbots: 10_000,
};

/** One map of the read cache: values by key, each loaded once and kept until the database changes. */
export interface ReadCacheMap<Value> {
  /** The cached value for `key`, or `load()`'s (cached unless null: a miss is never remembered). */
  get(key: string, load: () => Value | null): Value | null;
  /** How many entries the map holds now (for tests of the bound). */
  readonly size: number;
}

/** A cache of rows that are read on every request and rarely written, never stale. */
export interface ReadCache {
  /** A new map of at most `maxEntries` values (0: none), emptied with every other one whenever the database may have changed. */
  map<Value>(maxEntries: number): ReadCacheMap<Value>;
  /**
   * Runs a write step that touches none of the cached tables, so the cache survives it. Any
   * other write on this connection empties the cache at the next read.
   */
  keepingCache<Result>(step: () => Result): Result;
  /**
   * Marks the start of an outside request (the server calls it for each HTTP request). From
   * then until the next request starts or the event loop's turn ends, reads share one check of
   * other connections' commits, so a request whose reads follow one another pays for one check.
   * (Other work in that turn, such as a background job's read after its I/O, shares it too: it
   * may miss a commit made within the turn, never one made before the turn's latest request.)
   */
  requestStarted(): void;
  /** Takes the cache off its connection's list (keepingReadCaches), when its storage closes. */
  release(): void;
}

/**
 * Runs `step`, a write on `database` that touches none of the cached tables (the search index's
 * scratch tokenizer), through the `keepingCache` of every read cache open on that connection,
 * so its rows do not empty them.
 */
export function keepingReadCaches<Result>(database: Database, step: () => Result): Result {
  let run = step;
  for (const cache of registered.get(database) ?? []) {
    const inner = run;
    run = () => cache.keepingCache(inner);
  }
  return run();
}

/** The read caches open on each connection (a storage's, until its `close`). */
const registered = new WeakMap<Database, Set<ReadCache>>();

/** Adds `cache` to its connection's (keepingReadCaches); returns what removes it. */
function register(database: Database, cache: ReadCache): () => void {
  let caches = registered.get(database);
  if (caches === undefined) registered.set(database, (caches = new Set()));
  caches.add(cache);
  return () => caches.delete(cache);
}

/**
 * A per-connection cache for the reads behind every request (the API key and its owner, a
 * chatbot, an owner's list of chatbots). It is never stale: before every read it asks SQLite
 * whether the database changed, and empties itself when
 * - another connection committed (any process, e.g. the `parley` CLI): `PRAGMA data_version`
 *   moves; or
 * - this connection changed rows (`total_changes()` moves) in any step other than those run
 *   through `keepingCache` (the chat's own writes, which touch no cached table).
 * The check costs two prepared one-row statements (1.5–3 µs: the first takes WAL's shared
 * lock, as any read does). A server shares the first of them among a request's reads
 * (`requestStarted`): a read then sees every commit made before its request started, which is
 * what a caller can tell apart, and every write of this connection, which it checks each time.
 * Each map keeps at most its `maxEntries` values and drops the oldest first; misses are not
 * remembered, so unknown keys cannot push out known ones.
 */
export function createReadCache(database: Database): ReadCache {
  const dataVersion = database.prepare("PRAGMA data_version").pluck();
  const totalChanges = database.prepare("SELECT total_changes()").pluck();
  const maps: Map<string, unknown>[] = [];
  let seenVersion = dataVersion.get();
  let seenChanges = totalChanges.get();

  // Whether reads share the check of other connections' commits: "no" outside requests;
  // "pending" from a request's start until its first read, which checks; "shared" after it.
  let sharing: "no" | "pending" | "shared" = "no";
  let turnEnd: ReturnType<typeof setImmediate> | undefined;
  const endTurn = () => {
    sharing = "no";
    turnEnd = undefined;
  };

  const forgetIfChanged = () => {
    const version = sharing === "shared" ? seenVersion : dataVersion.get();
    const changes = totalChanges.get();
    if (sharing === "pending") sharing = "shared";
    if (version === seenVersion && changes === seenChanges) return;
    for (const entries of maps) entries.clear();
    seenVersion = version;
    seenChanges = changes;
  };

  const cache: ReadCache = {
    map<Value>(maxEntries: number): ReadCacheMap<Value> {
      if (!Number.isInteger(maxEntries) || maxEntries < 0) throw new RangeError(`A read cache bound must be a whole number (got ${maxEntries}).`);
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
    requestStarted() {
      sharing = "pending";
      // The turn's end stops the sharing: work of a later turn (a timer, another process's
      // message) checks for itself.
      turnEnd ??= setImmediate(endTurn);
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
    release() {
      unregister();
    },
  };
  const unregister = register(database, cache);
  return cache;
}
