import { randomInt, randomUUID } from 'node:crypto';
import { type Compilable, type CompiledQuery, createQueryId, type Insertable } from 'kysely';
import { beforeCommit, type Db, type Tx, writeTogether } from './db';
import type { Tables } from './schema';
import { hasSealedColumns } from './sealed-secrets';

/**
 * A hot query, built and compiled once per engine, then run with new arguments. Kysely
 * otherwise rebuilds the query tree and recompiles its SQL on every call, which costs more
 * than SQLite takes to answer a lookup by a unique key. `build` must pass each argument
 * into the query as a bound value, unchanged (checked on the first call); a number (a
 * page's limit and offset) as a number.
 */
export function compiledOnce<A extends (string | number)[], R>(build: (db: Db, ...args: A) => Compilable<R>) {
  const perEngine = new Map<unknown, { compiled: CompiledQuery<R>; slots: ({ arg: number } | { value: unknown })[] }>();
  /** The statement with these arguments, for running with others (together.ts). */
  const compile = (db: Db, ...args: A): CompiledQuery<R> => {
    const engine = db.getExecutor().adapter.constructor;
    let entry = perEngine.get(engine);
    if (!entry) {
      // Random stand-ins, distinct, so no constant in the query can be mistaken for an argument.
      const marks = [] as unknown as A;
      for (const arg of args) {
        let mark: string | number;
        do mark = typeof arg === 'number' ? randomInt(2 ** 40, 2 ** 47) : randomUUID();
        while (marks.includes(mark));
        marks.push(mark);
      }
      const compiled = build(db, ...marks).compile();
      const slots = compiled.parameters.map((value) => {
        const arg = marks.indexOf(value as string | number);
        return arg >= 0 ? { arg } : { value };
      });
      const bound = (mark: string | number) => compiled.parameters.includes(mark) && !compiled.sql.includes(String(mark));
      if (!marks.every(bound)) throw new Error('every argument must be a bound value of the query, and only that');
      entry = { compiled, slots };
      perEngine.set(engine, entry);
    }
    const parameters = entry.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value));
    return { ...entry.compiled, parameters, queryId: createQueryId() };
  };
  const run = async (db: Db, ...args: A): Promise<R[]> => (await db.executeQuery<R>(compile(db, ...args))).rows;
  return Object.assign(run, { compile });
}

/**
 * An INSERT of whole rows, its SQL built and compiled once per table, columns, row count
 * and engine: a charge's or a transaction's inserts (the sale, its operation, the gateway
 * call, the events) would otherwise have Kysely rebuild and recompile the same statement
 * on every request. The rows must all have the same columns. Not for a table with sealed
 * columns: the sealed-secrets plugin seals their values while Kysely compiles each insert.
 */
export function compiledInsert<T extends keyof Tables>(db: Db, table: T, rows: readonly Insertable<Tables[T]>[]): CompiledQuery {
  if (hasSealedColumns(table)) throw new Error(`${table} has columns sealed at rest: insert it with Kysely`);
  const columns = Object.keys(rows[0]!).filter((c) => (rows[0] as Record<string, unknown>)[c] !== undefined);
  const engine = db.getExecutor().adapter.constructor;
  const key = `${table} ${rows.length} ${columns.join(',')}`;
  let byKey = inserts.get(engine);
  if (!byKey) inserts.set(engine, (byKey = new Map()));
  let entry = byKey.get(key);
  if (!entry) {
    const marks: string[][] = rows.map(() => columns.map(() => randomUUID()));
    const compiled = db
      .insertInto(table)
      .values(marks.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i]]))) as never)
      .compile();
    const flat = marks.flat();
    const order = compiled.parameters.map((p) => flat.indexOf(p as string));
    if (order.length !== flat.length || order.some((i) => i < 0)) throw new Error(`${table}: not a plain insert of its values`);
    entry = { compiled, order };
    byKey.set(key, entry);
  }
  const values = rows.flatMap((row) => columns.map((c) => (row as Record<string, unknown>)[c]));
  return { ...entry.compiled, parameters: entry.order.map((i) => values[i]), queryId: createQueryId() };
}

/** Inserts rows through compiledInsert. */
export async function insertRows<T extends keyof Tables>(db: Db, table: T, rows: readonly Insertable<Tables[T]>[]): Promise<void> {
  if (rows.length) await db.executeQuery(compiledInsert(db, table, rows));
}

/** Rows each open transaction inserts as it commits, by table in the order first asked for (insertAtCommit). */
const atCommit = new WeakMap<Tx, Map<keyof Tables, unknown[]>>();

/**
 * Inserts rows as `trx` commits, with every other row asked for so: one statement on
 * PostgreSQL (writeTogether), one INSERT per table on SQLite. For rows nothing reads back
 * in the same transaction (an operation, an attempt, the outbox's events): a payment's
 * record so costs one statement for all of them (issue 49). Rows of one table must have
 * the same columns; a table must come after the tables its rows name. Inserted at once
 * where `trx` is not a transaction opened by inTransaction or rollbackOn.
 */
export async function insertAtCommit<T extends keyof Tables>(trx: Tx, table: T, rows: readonly Insertable<Tables[T]>[]): Promise<void> {
  if (rows.length === 0) return;
  let waiting = atCommit.get(trx);
  if (!waiting) {
    const tables = new Map<keyof Tables, unknown[]>();
    if (!beforeCommit(trx, () => writeWaiting(trx, tables))) return insertRows(trx, table, rows);
    atCommit.set(trx, (waiting = tables));
  }
  const queued = waiting.get(table) ?? [];
  queued.push(...rows);
  waiting.set(table, queued);
}

/**
 * Writes now what `db`'s transaction has waiting for its commit (insertAtCommit), if
 * anything: called by the reads that may follow such a row in its transaction (a sale's
 * operations), so they see it.
 */
export async function insertWaitingNow(db: Db): Promise<void> {
  const tables = atCommit.get(db as Tx);
  if (tables) await writeWaiting(db as Tx, tables);
}

async function writeWaiting(trx: Tx, tables: Map<keyof Tables, unknown[]>): Promise<void> {
  // Written already (insertWaitingNow): rows asked for since wait in a map of their own.
  if (atCommit.get(trx) !== tables) return;
  atCommit.delete(trx);
  // What follows at once: the transaction's next write or read of them, or its commit.
  await writeTogether(trx, [...tables].map(([name, queued]) => compiledInsert(trx, name, queued as never)), { withNext: true });
}

const inserts = new Map<unknown, Map<string, { compiled: CompiledQuery; order: number[] }>>();
