import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { type CompiledQuery, createQueryId, Kysely, PostgresAdapter, type Transaction } from 'kysely';
import { insideTransaction } from './open-transaction';
import { openPostgres } from './postgres';
import type { TimeoutsWatch } from './pg-timeouts';
import type { Tables } from './schema';
import { SealedSecrets, type SecretsKeys } from './sealed-secrets';
import { defineFunctions } from './sqlite-functions.mjs';
import { SplitConnection, splitSqliteDialect } from './sqlite-split';
import { UNREAD } from './unread';

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
  /** SQLite: this process's writes waiting behind an open transaction (sqlite-split.ts, Turn). */
  waitingWriters?(): number;
  /** PostgreSQL's pool: connections open, idle, and callers waiting for one (metrics). */
  pool?(): { total: number; idle: number; waiting: number };
  /** PostgreSQL: whether statement_timeout and idle_in_transaction_session_timeout are in force (pg-timeouts.ts). */
  timeouts?: TimeoutsWatch;
  /**
   * PostgreSQL: what the migrator runs on (MIGRATION_DATABASE_URL, or this pool), each
   * transaction under the migration lock (migration-lock.ts). Destroy it after use.
   */
  migrations?(): Db;
  close(): Promise<void>;
}

export interface DbLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** PostgreSQL only; see Config. */
  dbStatementTimeoutMs?: number;
  dbAcquireTimeoutMs?: number;
  /** `transaction`: a transaction pooler (PgBouncer) is in front; the timeouts are the role's, not sent at connect. */
  databasePooler?: 'none' | 'transaction';
  /** PostgreSQL: a direct connection for the migrations (past the pooler); else DATABASE_URL. */
  migrationDatabaseUrl?: string | null;
  /** Where the PostgreSQL side tells of a primary found or lost, and of a commit of unknown durability. */
  log?: DbLog;
  /**
   * Told when PostgreSQL drops a pooled connection (a restart, a failover, an
   * administrator's terminate), idle or lent out between two statements. pg emits that as
   * an `error` event, and an EventEmitter with no listener for `error` throws: the
   * process would die.
   */
  onConnectionError?: (err: Error) => void;
  /**
   * PostgreSQL: a connection asked of the pool by work inside a transaction is an error,
   * not a wait (open-transaction.ts): tests, where such a wait would deadlock only under load.
   */
  strictTransactions?: boolean;
  /** SECRETS_KEY (and rotated-out keys): without one, secrets are stored as they are. */
  secretsKeys?: SecretsKeys;
}

export function openDatabase(opts: DatabaseOptions): Database {
  const secrets = new SealedSecrets(opts.secretsKeys ?? { current: null, previous: [] });
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts, secrets);
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
  const dialect = splitSqliteDialect(reader, file, pragmas);
  const db = new Kysely<Tables>({ dialect, plugins: [secrets] });
  // data_version moves whenever another connection commits: the writer thread's
  // connection, or another process's (the keys CLI).
  const dataVersion = reader.prepare('PRAGMA data_version').pluck();
  return { db, engine: 'sqlite', secrets, changeStamp: () => String(dataVersion.get()), waitingWriters: dialect.waitingWriters, close: () => db.destroy() };
}

/**
 * Writes whose results nobody reads, committed together: all or none. On PostgreSQL they
 * are one statement (asOneStatement), atomic by itself outside a transaction. On SQLite
 * they reach the writer thread as one message, so the transaction never waits for this
 * thread to come round; in a caller's transaction they run one by one in it.
 * `withNext`: in a transaction, they go to the database with the transaction's next
 * statement, its COMMIT at the latest, and their error is that one's (unread.ts): for
 * writes that the next statement follows at once, with nothing outside the database between.
 */
export async function writeTogether(db: Db, compiled: CompiledQuery[], o: { withNext?: boolean } = {}): Promise<void> {
  if (compiled.length === 0) return;
  const unread = o.withNext && db.isTransaction;
  const marked = (query: CompiledQuery): CompiledQuery => (unread ? { ...query, parameters: [...query.parameters, UNREAD] } : query);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.executeQuery(marked(asOneStatement(compiled)));
    return;
  }
  if (!db.isTransaction) {
    const sent = await db.getExecutor().provideConnection(async (connection) => {
      if (!(connection instanceof SplitConnection)) return false;
      await connection.executeBatch(compiled);
      return true;
    });
    if (sent) return;
  }
  await inTransaction(db, async (trx) => {
    for (const query of compiled) await trx.executeQuery(marked(query));
  });
}

/**
 * Plain INSERTs (compiled.ts compiledInsert) as one PostgreSQL statement: all but the last
 * as data-modifying WITH queries, their parameters renumbered after the ones before. One
 * statement is one snapshot, and foreign keys are checked at its end, so a row may name
 * one inserted beside it.
 */
function asOneStatement(compiled: CompiledQuery[]): CompiledQuery {
  if (compiled.length === 1) return compiled[0]!;
  let offset = 0;
  const parts = compiled.map((query) => {
    const at = offset;
    offset += query.parameters.length;
    return query.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + at}`);
  });
  const sql = `with ${parts.slice(0, -1).map((part, i) => `w${i} as (${part})`).join(', ')} ${parts.at(-1)}`;
  return { ...compiled.at(-1)!, sql, parameters: compiled.flatMap((q) => q.parameters), queryId: createQueryId() };
}

/** The writes waiting for each open transaction's work to end (beforeCommit). */
const commitWrites = new WeakMap<Tx, (() => Promise<void>)[]>();
/** The database each transaction opened here runs on (databaseOf). */
const databases = new WeakMap<Tx, Db>();

/** The database `db` is a transaction of (or `db` itself): what is kept per database (auth-changes.ts) is found by it. */
export const databaseOf = (db: Db): Db => databases.get(db as Tx) ?? db;

/**
 * Runs `write` in `trx` once the transaction's work is done, just before it commits: for
 * rows that several steps of one transaction add, written in one statement (the outbox's
 * events and deliveries, store/events.ts). False when `trx` is not a transaction opened by
 * inTransaction or rollbackOn, or its work is over: write at once then.
 */
export function beforeCommit(trx: Tx, write: () => Promise<void>): boolean {
  const writes = commitWrites.get(trx);
  writes?.push(write);
  return writes !== undefined;
}

/** What each open transaction has asked to be told once it has committed (afterCommit). */
const commitListeners = new WeakMap<Tx, (() => void)[]>();

/**
 * `listener` once what `db` has written is committed: at once outside a transaction (each
 * statement commits by itself), after the commit in a transaction opened by inTransaction
 * or rollbackOn, never if it rolls back. For work another part of the process can start
 * now rather than at its next poll (a webhook's delivery, jobs/runner.ts wake); it must not
 * throw, since what it follows is done. False when `db` is a transaction opened elsewhere:
 * nobody is told, the poll finds the rows.
 */
export function afterCommit(db: Db, listener: () => void): boolean {
  if (!db.isTransaction) {
    listener();
    return true;
  }
  const listeners = commitListeners.get(db as Tx);
  listeners?.push(listener);
  return listeners !== undefined;
}

/** `fn` in a new transaction, then the writes it left for its end (beforeCommit), then the commit, then its listeners (afterCommit). */
async function newTransaction<T>(db: Db, fn: (trx: Tx) => Promise<T>): Promise<T> {
  const listeners: (() => void)[] = [];
  const result = await db.transaction().execute((trx) =>
    insideTransaction(db, async () => {
      const writes: (() => Promise<void>)[] = [];
      commitWrites.set(trx, writes);
      commitListeners.set(trx, listeners);
      databases.set(trx, db);
      const result = await fn(trx);
      // One by one, in the order they were asked for; a write may ask for another.
      for (let i = 0; i < writes.length; i++) await writes[i]!();
      commitWrites.delete(trx);
      return result;
    }),
  );
  for (const listener of listeners) listener();
  return result;
}

/** Runs `fn` in a database transaction, joining the caller's when there already is one. */
export function inTransaction<T>(db: Db, fn: (trx: Tx) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db as Tx) : newTransaction(db, fn);
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
    return await newTransaction(db, fn);
  } catch (err) {
    if (err instanceof Rollback) return err.result as R;
    throw err;
  }
}
