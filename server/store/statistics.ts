import { sql } from 'kysely';
import type { Database, Db } from './db';

// SQLite's query planner picks an index by the statistics ANALYZE writes (sqlite_stat1, and
// sqlite_stat4 in better-sqlite3's build); without them it guesses, and on a shop of 10,000
// payments the dashboard's lists and home took several times longer (docs/performance-changelog.md,
// "The dashboard's pages"). This pass analyses the tables `PRAGMA optimize=0x10002` would
// (those with no statistics yet, or changed much since their last analysis, as SQLite
// judges), with two rules of ours:
//
// - A table with fewer than MIN_ANALYSED_ROWS rows keeps no statistics. Statistics taken
//   of a nearly empty table say "one row", and the planner then scanned the whole table for
//   a lookup by a unique column (the payment page's transaction by token, joined with its
//   merchant) until the table had grown tenfold and the hourly pass came round: 1.07 ms a
//   lookup at 20,157 rows against 0.10 ms with the index (docs/performance-changelog.md, 6 December
//   2026). Without statistics the planner assumes a large table and uses the index, which
//   is right at any size.
// - ANALYZE loads the new statistics into the connection that ran it (the writer) only: the
//   reading connection kept those it loaded when it last read the schema, for as long as the
//   process lived. A schema change makes every connection read the schema again, statistics
//   included, and re-prepare its statements; so when anything changed, a view is created and
//   dropped in one transaction.
//
// No `analysis_limit`: under one SQLite writes no sqlite_stat4, and the dashboard's plans
// measured worse without it. PostgreSQL's autovacuum analyses on its own.

/** A table with fewer rows than this keeps no planner statistics (see above). */
export const MIN_ANALYSED_ROWS = 1000;

/** Brings SQLite's planner statistics up to date on every connection; nothing on PostgreSQL. */
export async function refreshStatistics(database: Pick<Database, 'db' | 'engine'>): Promise<void> {
  if (database.engine !== 'sqlite') return;
  const { db } = database;
  // 0x10003: optimize's choice over every table (0x10000, analyse 0x2), said rather than done (0x1).
  const due = await sql<{ optimize: string }>`PRAGMA optimize = 0x10003`.execute(db);
  if (due.rows.length === 0) return;
  const kept = await sql<{ name: string }>`select name from sqlite_schema where type = 'table' and name in ('sqlite_stat1', 'sqlite_stat4')`.execute(db);
  const statTables = kept.rows.map((r) => r.name);
  let changed = false;
  for (const { optimize } of due.rows) {
    const table = analysedTable(optimize);
    if (await rowsAtLeast(db, table, MIN_ANALYSED_ROWS)) {
      await sql`ANALYZE ${sql.table(table)}`.execute(db);
      changed = true;
    } else {
      changed = (await forgetStatistics(db, statTables, table)) || changed;
    }
  }
  if (changed) await rereadSchemaEverywhere(db);
}

/** The table of one of `PRAGMA optimize`'s statements, `ANALYZE "main"."name"`. */
function analysedTable(statement: string): string {
  const name = /^ANALYZE "main"\."((?:[^"]|"")+)"$/.exec(statement)?.[1];
  if (name === undefined) throw new Error(`unexpected PRAGMA optimize statement: ${statement}`);
  return name.replaceAll('""', '"');
}

async function rowsAtLeast(db: Db, table: string, n: number): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from (select 1 from ${sql.table(table)} limit ${n})`.execute(db);
  return Number(rows[0]!.n) >= n;
}

/** Drops what an earlier analysis recorded of `table` in `statTables`; whether there was anything. */
async function forgetStatistics(db: Db, statTables: string[], table: string): Promise<boolean> {
  let dropped = 0n;
  for (const name of statTables) dropped += (await sql`delete from ${sql.table(name)} where tbl = ${table}`.execute(db)).numAffectedRows ?? 0n;
  return dropped > 0n;
}

async function rereadSchemaEverywhere(db: Db): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await sql`create view statistics_changed as select 1 as one`.execute(tx);
    await sql`drop view statistics_changed`.execute(tx);
  });
}
