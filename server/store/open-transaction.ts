import { AsyncLocalStorage } from 'node:async_hooks';

// Which work runs inside a database transaction, while it is open: what lets the pool
// refuse a second connection asked from there (postgres.ts, strictTransactions). Such a
// request is a deadlock under load: ten transactions each waiting for an eleventh
// connection of a pool of ten wait until DB_ACQUIRE_TIMEOUT_MS, then answer 503. Work
// started inside and still running after the end (a promise not awaited) is free again.
//
// Only for the databases opened strict (tests): on Node 20 the first AsyncLocalStorage run
// installs a promise hook that then runs for every promise of the process (1 % of the
// service's main thread in a profiled payment bench, docs/performance-changelog.md).

const current = new AsyncLocalStorage<{ open: boolean }>();
const strict = new WeakSet<object>();

/** Marks `db`'s transactions as tracked (insideTransaction): opened with strictTransactions. */
export const trackTransactions = (db: object): void => void strict.add(db);

/** Runs `fn` marked as inside a transaction of `db` until it settles, when `db` is tracked. */
export async function insideTransaction<T>(db: object, fn: () => Promise<T>): Promise<T> {
  if (!strict.has(db)) return fn();
  const mark = { open: true };
  try {
    return await current.run(mark, fn);
  } finally {
    mark.open = false;
  }
}

/** Whether the caller runs inside a transaction that is still open. */
export const inOpenTransaction = (): boolean => current.getStore()?.open === true;
