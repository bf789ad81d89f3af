import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// What the merchant's own processor account settled for a sale (issue 45, settlement by
// Stripe; docs/processors.md "What settles where"): the figures of the processor's record of
// the captured payment (Stripe's balance transaction), read once it exists and never changed
// after (Stripe captures a PaymentIntent once). Money in the processor's minor units of
// `currency`, which is the currency the processor settled in (upper-case ISO 4217). A table
// of its own: only processor-settled sales have a row, and writing one never touches the hot
// `sales` row; no row is "not read yet".
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'sale_processor_settlements')
      .build((t) =>
        t
          .addColumn('sale_id', 'text', (c) => c.primaryKey().references('sales.id'))
          .addColumn('record', 'text', (c) => c.notNull())
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('fee', d.int, (c) => c.notNull())
          .addColumn('net', d.int, (c) => c.notNull())
          .addColumn('available_on', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
  },
});
