import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase, type Transaction } from 'kysely';
import pg from 'pg';
import type { Tables } from './schema';

export type Engine = 'sqlite' | 'postgres';
export type Db = Kysely<Tables>;
export type Tx = Transaction<Tables>;

export interface Database {
  db: Db;
  engine: Engine;
  /**
   * Changes whenever the database may have changed: before any write of this process
   * runs, and after any commit by another connection. null where the engine cannot tell
   * without a round trip (PostgreSQL).
   */
  changeStamp(): string | null;
  close(): Promise<void>;
}

// int8 comes back from pg as a string; amounts are bounded far below 2^53 by validation,
// so a Number is exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/**
 * Kysely's SQLite driver calls prepare() for every query, and better-sqlite3 compiles the
 * SQL each time: a third of a token lookup's cost. Queries with the same text get the same
 * compiled statement back (SQLite re-prepares it by itself if the schema changes); one
 * still being iterated (a streamed query) is never handed out twice.
 */
function reusingStatements(sqlite: SQLite.Database, onWrite: () => void, max = 500): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    // Kysely prepares every statement right before it runs it.
    prepare(sql: string) {
      const cached = statements.get(sql);
      if (cached && !cached.busy) return noteWrite(cached);
      const statement = sqlite.prepare(sql);
      // Multi-row inserts and IN lists vary in length: keep the cache bounded, oldest out.
      if (!cached && statements.size >= max) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
      return noteWrite(statement);
    },
  };
  function noteWrite(statement: SQLite.Statement) {
    if (!statement.readonly) onWrite();
    return statement;
  }
}

export function openDatabase(opts: { databaseUrl: string | null; dataDir: string }): Database {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    return { db, engine: 'postgres', changeStamp: () => null, close: () => db.destroy() };
  }
  mkdirSync(opts.dataDir, { recursive: true });
  const sqlite = new SQLite(join(opts.dataDir, 'checkout.db'));
  // WAL keeps readers off the writer's lock; synchronous=FULL fsyncs every commit so an
  // acknowledged write survives kill -9 and power loss.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  let writes = 0;
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: reusingStatements(sqlite, () => writes++) }) });
  // data_version moves when another connection (another process: the keys CLI) commits.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  return { db, engine: 'sqlite', changeStamp: () => `${dataVersion.get()} ${writes}`, close: () => db.destroy() };
}

/** Runs `fn` in a database transaction, joining the caller's when there already is one. */
export function inTransaction<T>(db: Db, fn: (trx: Tx) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db as Tx) : db.transaction().execute(fn);
}
