import type { Db } from './db';
import type { RedsysOperationRow } from './schema';

// What the Redsys connector sent for each confirmation, refund and cancellation (migration
// 117), written before it is sent: the count the query service showed before it, which
// settles an unknown outcome after a restart too (payments/redsys/actions.ts).

/** Kept before sending; a reference sent again (its earlier send proven not made) takes its new count. */
export async function keepRedsysOperation(db: Db, row: RedsysOperationRow): Promise<void> {
  await db
    .insertInto('redsys_operations')
    .values(row)
    .onConflict((oc) => oc.column('reference').doUpdateSet({ count_before: row.count_before, sent_at: row.sent_at }))
    .execute();
}

/** What was sent for a reference on this terminal, if anything was. */
export function findRedsysOperation(db: Db, key: { merchantCode: string; terminal: string; reference: string }): Promise<RedsysOperationRow | undefined> {
  return db
    .selectFrom('redsys_operations')
    .selectAll()
    .where('reference', '=', key.reference)
    .where('merchant_code', '=', key.merchantCode)
    .where('terminal', '=', key.terminal)
    .executeTakeFirst();
}
