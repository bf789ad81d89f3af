import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// What the Redsys connector sent for each confirmation, refund and cancellation, written
// before it is sent (issue 46; docs/processors.md "Operations that are not idempotent").
// Redsys carries such an operation out again when it is sent again, so one whose answer
// never came is settled by the query service's count of the order's operations of its type
// and amount, against the count taken before it was sent (`count_before`; null without the
// query service). Kept here, a process started after a crash still has it.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'redsys_operations')
      .build((t) =>
        t
          .addColumn('reference', 'text', (c) => c.primaryKey())
          .addColumn('merchant_code', 'text', (c) => c.notNull())
          .addColumn('terminal', 'text', (c) => c.notNull())
          .addColumn('order_number', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('currency_code', 'text', (c) => c.notNull())
          .addColumn('count_before', d.int)
          .addColumn('sent_at', 'text', (c) => c.notNull()),
      )
      .execute();
  },
});
