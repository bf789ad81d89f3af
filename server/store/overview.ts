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
