import { AsyncLocalStorage } from 'node:async_hooks';

// Which work runs inside a database transaction, while it is open: what lets the pool
// refuse a second connection asked from there (postgres.ts, strictTransactions). Such a
// request is a deadlock under load: ten transactions each waiting for an eleventh
// connection of a pool of ten wait until DB_ACQUIRE_TIMEOUT_MS, then answer 503. Work
// started inside and still running after the end (a promise not awaited) is free again.

const current = new AsyncLocalStorage<{ open: boolean }>();

/** Runs `fn` marked as inside a transaction until it settles. */
export async function insideTransaction<T>(fn: () => Promise<T>): Promise<T> {
  const mark = { open: true };
  try {
    return await current.run(mark, fn);
  } finally {
    mark.open = false;
  }
}

/** Whether the caller runs inside a transaction that is still open. */
export const inOpenTransaction = (): boolean => current.getStore()?.open === true;
