import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { insertTransaction } from '../../server/store/transaction-aggregate';
import { getTransaction, type StoredTransaction } from '../../server/store/transactions';
import { copyOf, type Store } from './data';

// The engine without the service: the same writes and reads the API routes make, in this
// process, with no HTTP, validation, auth, pricing or logging in between.
//
// The reference is the store's own functions (insertTransaction, getTransaction: Kysely,
// one database transaction per created transaction, fsync on commit, the same statements
// the route runs), so the ratio prices exactly what the API adds on top of its storage
// work. Raw better-sqlite3 with prepared statements is measured beside it to show what
// Kysely itself costs, which is the store's choice, not the route's.

export interface RawResult {
  /** Operations per second. */
  rps: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  operations: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! : 0;
}

/** `operation` run back to back by `concurrency` workers for `seconds`. */
async function rate(operation: () => unknown, seconds: number, concurrency: number): Promise<RawResult> {
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      await operation();
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), operations: latencies.length };
}

export interface RawTiming {
  duration: number;
  warmup: number;
  /** As many in flight as the HTTP run has connections (the PostgreSQL pool uses them). */
  concurrency: number;
}

export async function measured(operation: () => unknown, t: RawTiming): Promise<RawResult> {
  if (t.warmup > 0) await rate(operation, t.warmup, t.concurrency);
  return rate(operation, t.duration, t.concurrency);
}

export function storeInsertRate(store: Store, template: StoredTransaction, t: RawTiming): Promise<RawResult> {
  return measured(() => insertTransaction(store.database.db, copyOf(template)), t);
}

export function storeReadRate(store: Store, id: string, t: RawTiming): Promise<RawResult> {
  return measured(async () => {
    if (!(await getTransaction(store.database.db, store.keys.environment_id, id))) throw new Error(`transaction ${id} not found`);
  }, t);
}

/** A row as SQLite binds it: the store reads 0/1 columns back as booleans, better-sqlite3 binds no boolean. */
const bindable = <T extends object>(row: T): T => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v])) as T;

/** SQLite only: the same rows through prepared statements on a connection of its own, with the service's pragmas. */
export async function sqliteInsertRate(dataDir: string, stored: StoredTransaction, t: RawTiming): Promise<RawResult> {
  const template = { row: bindable(stored.row), lines: stored.lines.map(bindable) };
  const sqlite = new SQLite(join(dataDir, 'checkout.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const insertInto = (table: string, row: object) => {
    const columns = Object.keys(row);
    return sqlite.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
  };
  const insertRow = insertInto('transactions', template.row);
  const insertLine = insertInto('transaction_lines', template.lines[0]!);
  const insert = sqlite.transaction((tx: StoredTransaction) => {
    insertRow.run(tx.row);
    for (const line of tx.lines) insertLine.run(line);
  });
  try {
    // Synchronous: one writer, nothing to overlap.
    return await measured(() => insert(copyOf(template)), { ...t, concurrency: 1 });
  } finally {
    sqlite.close();
  }
}
