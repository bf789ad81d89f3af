import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// When the balance job dealt with a sale operation: recorded its balance transaction, or
// found that its money is not the platform's balance (a sale paid from a source, a processor
// that settles to the merchant's own account); an operation of a kind that moves no money
// of the merchant (a hold, a void, a decline) is born dealt with. The job found its work as
// the captures, charges and refunds without a balance transaction, an anti-join over every
// operation ever made, once a second: 80-140 ms of PostgreSQL at 30,000 payments, growing
// with them. It now reads the operations this index holds, the ones not yet dealt with.
// Those in the balance already and those of the other kinds are marked here; the job marks
// the rest as it meets them.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('sale_operations').addColumn('balance_checked_at', 'text').execute();
    await db
      .updateTable('sale_operations')
      .set((eb) => ({ balance_checked_at: eb.ref('created_at') }))
      .where(({ or, eb, exists, selectFrom }) =>
        or([
          eb('kind', 'not in', ['capture', 'charge', 'refund']),
          exists(selectFrom('balance_transactions').select('id').whereRef('balance_transactions.operation_id', '=', 'sale_operations.id')),
        ]),
      )
      .execute();
    await db.schema.createIndex('sale_operations_balance_due').on('sale_operations').column('id').where(sql.ref('balance_checked_at'), 'is', null).execute();
  },
});
