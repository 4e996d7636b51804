// One process ingesting into a chatbot, for postgres-search-concurrency.test.ts:
// `node --conditions=source --import tsx postgres-search-ingest-child.ts URL SCHEMA PREFIX`.
// Writes its batches as fast as it can, then prints "done" and exits.
import { createPool } from "./postgres-database.js";
import { createPostgresSearchIndex } from "./postgres-search-index.js";
import { concurrencyBatches, CONCURRENCY_BOT, CONCURRENCY_SPACE } from "./test-search-corpus.js";

const [url, schema, prefix] = process.argv.slice(2) as [string, string, string];
const pool = createPool({ url, schema, poolSize: 2 });
const index = createPostgresSearchIndex({ pool });
for (const batch of concurrencyBatches(prefix)) await index.replaceDocuments(CONCURRENCY_BOT, CONCURRENCY_SPACE, batch);
await pool.end();
process.stdout.write("done\n");
