import { sql } from 'kysely';
import type { Database } from './db';

// SQLite's query planner picks an index by the statistics ANALYZE writes (sqlite_stat1, and
// sqlite_stat4 in better-sqlite3's build); without them it guesses, and on a shop of 10,000
// payments the dashboard's lists and home took several times longer (docs/performance.md,
// "The dashboard's pages"). `PRAGMA optimize=0x10002` analyses every table that has no
// statistics yet or has changed enough since its last analysis, as SQLite judges; a table
// that has not changed is skipped. It writes, so it runs on the writer's connection; the
// reading connection loads the new statistics with its next statement (ANALYZE changes the
// schema's version). No `analysis_limit`: under one SQLite writes no sqlite_stat4, and the
// dashboard's plans measured worse without it. PostgreSQL's autovacuum analyses on its own.

/** Brings SQLite's planner statistics up to date; nothing on PostgreSQL. */
export async function refreshStatistics(database: Pick<Database, 'db' | 'engine'>): Promise<void> {
  if (database.engine !== 'sqlite') return;
  await sql`PRAGMA optimize = 0x10002`.execute(database.db);
}
