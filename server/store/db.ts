import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { Tables } from './schema';
import { SealedSecrets, type SecretsKeys } from './sealed-secrets';
import { defineFunctions } from './sqlite-functions.mjs';
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
  /** Seals and opens the secrets stored readable (sealed-secrets.ts). */
  secrets: SealedSecrets;
  /** PostgreSQL's pool: connections open, idle, and callers waiting for one (metrics). */
  pool?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

// int8 comes back from pg as a string; amounts are bounded far below 2^53 by validation,
// so a Number is exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** PostgreSQL only; see Config. */
  dbStatementTimeoutMs?: number;
  dbAcquireTimeoutMs?: number;
  /**
   * Told when PostgreSQL drops a pooled connection (a restart, a failover, an
   * administrator's terminate), idle or lent out between two statements. pg emits that as
   * an `error` event, and an EventEmitter with no listener for `error` throws: the
   * process would die.
   */
  onConnectionError?: (err: Error) => void;
  /** SECRETS_KEY (and rotated-out keys): without one, secrets are stored as they are. */
  secretsKeys?: SecretsKeys;
}

export function openDatabase(opts: DatabaseOptions): Database {
  const secrets = new SealedSecrets(opts.secretsKeys ?? { current: null, previous: [] });
  if (opts.databaseUrl) {
    const statementMs = opts.dbStatementTimeoutMs ?? 30_000;
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 10,
      // Waiting longer for a connection than a client waits for an answer helps nobody:
      // the request fails fast (503) and the pool keeps serving the others.
      connectionTimeoutMillis: opts.dbAcquireTimeoutMs ?? 5_000,
      statement_timeout: statementMs,
      // A transaction left open (a bug, a stalled process) would hold its row locks for ever.
      idle_in_transaction_session_timeout: 2 * statementMs,
    });
    // Every client listens for its own end, for as long as it lives: pg-pool listens only
    // while a client is idle, and a client lent out (a transaction between two statements)
    // whose session ends would throw. Its next statement then fails, and the pool discards
    // it when it comes back; an idle one is discarded at once. A session's end is told once
    // (pg emits the server's notice, then the closed socket). The pool re-emits an idle
    // client's error: already told, so its listener only keeps the pool from throwing.
    const lost = opts.onConnectionError ?? (() => {});
    pool.on('connect', (client) => {
      let told = false;
      client.on('error', (err) => {
        if (!told) lost(err);
        told = true;
      });
    });
    pool.on('error', () => {});
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }), plugins: [secrets] });
    const stats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    return { db, engine: 'postgres', secrets, changeStamp: () => null, pool: stats, close: () => db.destroy() };
  }
  mkdirSync(opts.dataDir, { recursive: true });
  const file = join(opts.dataDir, 'checkout.db');
  // Reads here, writes on a thread of their own (sqlite-split.ts). The journal mode is
  // the file's: set before the writer opens it.
  const reader = new SQLite(file);
  reader.pragma('journal_mode = WAL');
  reader.pragma('busy_timeout = 5000');
  reader.pragma('query_only = ON');
  defineFunctions(reader);
  // WAL keeps readers off the writer's lock; synchronous=FULL fsyncs every commit so an
  // acknowledged write survives kill -9 and power loss.
  const pragmas = ['journal_mode = WAL', 'synchronous = FULL', 'foreign_keys = ON', 'busy_timeout = 5000'];
  const db = new Kysely<Tables>({ dialect: splitSqliteDialect(reader, file, pragmas), plugins: [secrets] });
  // data_version moves whenever another connection commits: the writer thread's
  // connection, or another process's (the keys CLI).
  const dataVersion = reader.prepare('PRAGMA data_version').pluck();
  return { db, engine: 'sqlite', secrets, changeStamp: () => String(dataVersion.get()), close: () => db.destroy() };
}

/**
 * Writes whose results nobody reads, committed together: all or none. On SQLite they reach
 * the writer thread as one message, so the transaction never waits for this thread to come
 * round; in a caller's transaction, or on PostgreSQL, they run one by one in one.
 */
export async function writeTogether(db: Db, compiled: CompiledQuery[]): Promise<void> {
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
