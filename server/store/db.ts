import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { type Compilable, Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { Tables } from './schema';
import { SplitConnection, splitSqliteDialect } from './sqlite-split';

export type Engine = 'sqlite' | 'postgres';
export type Db = Kysely<Tables>;
export type Tx = Transaction<Tables>;

export interface Database {
  db: Db;
  engine: Engine;
  /**
   * Changes whenever a commit may have changed the database (on SQLite every write is
   * another connection's: this process's writer thread or another process). null where
   * the engine cannot tell without a round trip (PostgreSQL).
   */
  changeStamp(): string | null;
  close(): Promise<void>;
}

// int8 comes back from pg as a string; amounts are bounded far below 2^53 by validation,
// so a Number is exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function openDatabase(opts: { databaseUrl: string | null; dataDir: string }): Database {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client whose connection ends (a database restart or failover: 57P01) makes
    // the pool emit 'error'; unheard, that kills the process. The pool has already
    // discarded the broken client, and the next query opens a new one.
    pool.on('error', () => {});
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    return { db, engine: 'postgres', changeStamp: () => null, close: () => db.destroy() };
  }
  mkdirSync(opts.dataDir, { recursive: true });
  const file = join(opts.dataDir, 'checkout.db');
  // Reads here, writes on a thread of their own (sqlite-split.ts). The journal mode is
  // the file's: set before the writer opens it.
  const reader = new SQLite(file);
  reader.pragma('journal_mode = WAL');
  reader.pragma('busy_timeout = 5000');
  reader.pragma('query_only = ON');
  // WAL keeps readers off the writer's lock; synchronous=FULL fsyncs every commit so an
  // acknowledged write survives kill -9 and power loss.
  const pragmas = ['journal_mode = WAL', 'synchronous = FULL', 'foreign_keys = ON', 'busy_timeout = 5000'];
  const db = new Kysely<Tables>({ dialect: splitSqliteDialect(reader, file, pragmas) });
  // data_version moves whenever another connection commits: the writer thread's
  // connection, or another process's (the keys CLI).
  const dataVersion = reader.prepare('PRAGMA data_version').pluck();
  return { db, engine: 'sqlite', changeStamp: () => String(dataVersion.get()), close: () => db.destroy() };
}

/**
 * Writes whose results nobody reads, committed together: all or none. On SQLite they reach
 * the writer thread as one message, so the transaction never waits for this thread to come
 * round; in a caller's transaction, or on PostgreSQL, they run one by one in one.
 */
export async function writeTogether(db: Db, queries: Compilable<unknown>[]): Promise<void> {
  const compiled = queries.map((q) => q.compile());
  if (!db.isTransaction) {
    const sent = await db.getExecutor().provideConnection(async (connection) => {
      if (!(connection instanceof SplitConnection)) return false;
      await connection.executeBatch(compiled);
      return true;
    });
    if (sent) return;
  }
  await inTransaction(db, async (trx) => {
    for (const query of compiled) await trx.executeQuery(query);
  });
}

/** Runs `fn` in a database transaction, joining the caller's when there already is one. */
export function inTransaction<T>(db: Db, fn: (trx: Tx) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db as Tx) : db.transaction().execute(fn);
}

/** Thrown inside `fn` of `rollbackOn` to undo its writes and answer `result`. */
export class Rollback<R> extends Error {
  constructor(readonly result: R) {
    super('rolled back');
  }
}

/**
 * The one transaction idiom for a step that may fail after writing: `fn` throws a
 * Rollback to undo everything and answer its result instead. Joins an open transaction
 * like inTransaction; a nested Rollback is rethrown so the outer transaction rolls back too.
 */
export async function rollbackOn<T, R>(db: Db, fn: (trx: Tx) => Promise<T>): Promise<T | R> {
  if (db.isTransaction) return fn(db as Tx);
  try {
    return await db.transaction().execute(fn);
  } catch (err) {
    if (err instanceof Rollback) return err.result as R;
    throw err;
  }
}
