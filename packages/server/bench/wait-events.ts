// What PostgreSQL's backends of a run are doing, sampled from pg_stat_activity while the run
// goes on: on CPU, waiting for a lock, for the WAL's flush, for the client. Used by
// `npm run bench:scaleout -- --waits` to tell a run bound by CPU from one bound by waits.
import type pg from "pg";

/** Starts sampling every `everyMs`; `stop()` resolves with the lines to print, busiest first. */
export function sampleWaits(pool: pg.Pool, everyMs = 10): { stop: () => Promise<string[]> } {
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      const { rows } = await pool.query<{ wait: string; query: string }>(
        `SELECT coalesce(wait_event_type || ':' || wait_event, 'on CPU') AS wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 48) AS query
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`,
      );
      samples += 1;
      for (const { wait, query } of rows) counts.set(`${wait} | \`${query}\``, (counts.get(`${wait} | \`${query}\``) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await sampling;
      const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 8);
      return [`backends active by what they wait for (average over ${samples} samples):`, ...top.map(([key, count]) => `  ${(count / samples).toFixed(2)} ${key}`)];
    },
  };
}
