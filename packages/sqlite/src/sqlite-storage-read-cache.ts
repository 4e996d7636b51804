import type { Database } from "better-sqlite3";
import { commitCount, headerBuffer, openWalIndexHeader, type WalIndexHeader } from "./wal-index-header.js";

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
   * Runs a write step that touches none of the cached tables, so the cache survives it: a
   * transaction of its own (`temporaryOnly`: writes to temporary tables only). Any other write
   * on this connection empties the cache at the next read.
   */
  keepingCache<Result>(step: () => Result, options?: { temporaryOnly?: boolean }): Result;
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
  /** How it learns of other connections' commits: the wal-index header, or `PRAGMA data_version` for a database without one. */
  readonly watching: "wal-index header" | "data_version";
}

/**
 * Runs `step`, a write on `database` to temporary tables only (the search index's scratch
 * tokenizer), through the `keepingCache` of every read cache open on that connection,
 * so its rows do not empty them.
 */
export function keepingReadCaches<Result>(database: Database, step: () => Result): Result {
  let run = step;
  for (const cache of registered.get(database) ?? []) {
    const inner = run;
    run = () => cache.keepingCache(inner, { temporaryOnly: true });
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
 * chatbot, an owner's list of chatbots). It is never stale: before every read it checks whether
 * the database changed, and empties itself when
 * - another connection committed (any process, e.g. the `parley` CLI); or
 * - this connection changed rows (`total_changes()` moves) in any step other than those run
 *   through `keepingCache` (the chat's own writes, which touch no cached table).
 * Other connections' commits are seen in the wal-index header (wal-index-header.ts: one `pread`
 * of the `-shm` file, whose commit counter every commit moves), or, for a database without one,
 * with `PRAGMA data_version` (a read transaction). A server shares that check among a request's
 * reads (`requestStarted`): a read then sees every commit made before its request started, which
 * is what a caller can tell apart, and every write of this connection, which it checks each time.
 * Each map keeps at most its `maxEntries` values and drops the oldest first; misses are not
 * remembered, so unknown keys cannot push out known ones.
 */
export function createReadCache(database: Database): ReadCache {
  const totalChanges = database.prepare("SELECT total_changes()").pluck();
  const commits = watchCommits(database);
  const maps: Map<string, unknown>[] = [];
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
    const committedElsewhere = sharing !== "shared" && commits.moved();
    const changes = totalChanges.get();
    if (sharing === "pending") sharing = "shared";
    if (!committedElsewhere && changes === seenChanges) return;
    for (const entries of maps) entries.clear();
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
    keepingCache(step, options) {
      const before = totalChanges.get();
      let finished = false;
      try {
        const result = step();
        finished = true;
        return result;
      } finally {
        // Only when nothing else changed since the last check: otherwise that earlier change
        // must still empty the cache at the next read.
        if (before === seenChanges) {
          seenChanges = totalChanges.get();
          // The step committed once when it changed rows of the database's own tables and
          // ended its own transaction; else it committed nothing (rolled back, or inside a
          // caller's transaction, whose commit will then empty the cache).
          const committed = finished && seenChanges !== before && options?.temporaryOnly !== true && !database.inTransaction;
          commits.afterOwnWrite(committed ? 1 : 0);
        }
      }
    },
    release() {
      unregister();
      commits.close();
    },
    watching: commits.kind,
  };
  const unregister = register(database, cache);
  return cache;
}

/** How a read cache learns of commits made by other connections. */
interface CommitWatch {
  readonly kind: ReadCache["watching"];
  /** Whether a commit this watch has not been told of happened since the last call. */
  moved(): boolean;
  /** After a write step of this connection that committed `ownCommits` times: commits of its own are not news. */
  afterOwnWrite(ownCommits: 0 | 1): void;
  close(): void;
}

/** The wal-index header's watch when the database has one, else `PRAGMA data_version`'s. */
function watchCommits(database: Database): CommitWatch {
  const header = openWalIndexHeader(database);
  return header === null ? watchDataVersion(database) : watchWalIndex(header);
}

/** `PRAGMA data_version` moves with every other connection's commit, never with this one's. */
function watchDataVersion(database: Database): CommitWatch {
  const dataVersion = database.prepare("PRAGMA data_version").pluck();
  let seen = dataVersion.get();
  return {
    kind: "data_version",
    moved() {
      const version = dataVersion.get();
      if (version === seen) return false;
      seen = version;
      return true;
    },
    afterOwnWrite() {},
    close() {},
  };
}

/**
 * The wal-index header moves with every commit, this connection's too. After a write step of
 * this connection, the header it left is taken as seen only when the commit count moved by
 * exactly the step's own commits since the header last seen: then nothing else committed, before
 * the step or during it. Otherwise the next check reports the change.
 */
function watchWalIndex(header: WalIndexHeader): CommitWatch {
  const seen = headerBuffer();
  const now = headerBuffer();
  header.read(seen);
  return {
    kind: "wal-index header",
    moved() {
      header.read(now);
      if (now.equals(seen)) return false;
      seen.set(now);
      return true;
    },
    afterOwnWrite(ownCommits) {
      header.read(now);
      if (commitCount(now) === (commitCount(seen) + ownCommits) >>> 0) seen.set(now);
    },
    close() {
      header.close();
    },
  };
}
