import type { Db } from './db';

/** How many transactions an environment has: the overview's first figure, and whether to show the first steps. */
export async function countTransactions(db: Db, environmentId: string): Promise<number> {
  const row = await db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('environment_id', '=', environmentId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The currencies an environment takes payments in now: those of its open transactions
 * (links its customers may hold) and of its enabled products and plans. The Overview
 * checks each against the gateways (dashboard/home-attention.ts).
 */
export async function currenciesInUse(db: Db, environmentId: string, now: Date): Promise<string[]> {
  const [open, products, plans] = await Promise.all([
    db
      .selectFrom('transactions')
      .select('currency')
      .distinct()
      .where('environment_id', '=', environmentId)
      .where('status', '=', 'N')
      .where('expired_at', '>', now.toISOString())
      .execute(),
    db.selectFrom('products').select('currency').distinct().where('environment_id', '=', environmentId).where('enabled', '=', 1).where('currency', 'is not', null).execute(),
    db.selectFrom('plans').select('currency').distinct().where('environment_id', '=', environmentId).where('enabled', '=', 1).execute(),
  ]);
  return [...new Set([...open, ...products, ...plans].map((r) => r.currency!))].sort();
}
