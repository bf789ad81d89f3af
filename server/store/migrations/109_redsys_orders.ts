import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Redsys order numbers (Ds_Merchant_Order) in use, one row each (issue 46;
// docs/processors.md "Order numbers"). Redsys refuses a second payment with an order number
// its terminal has used (SIS0051), and every later confirmation, cancellation and refund
// names the payment's order: so a number must name one payment of ours, per (merchant code,
// terminal), whichever environment or processor row the terminal is connected through.
// The connector derives the number from our reference (payments/redsys/order.ts); the
// primary key is the rule under any concurrency: a number already claimed by another
// reference is found before Redsys is asked, and the connector takes the next one. The
// reference is unique too, so a payment resent after a crash finds its own number again.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'redsys_orders')
      .build((t) =>
        t
          .addColumn('merchant_code', 'text', (c) => c.notNull())
          .addColumn('terminal', 'text', (c) => c.notNull())
          .addColumn('order_number', 'text', (c) => c.notNull())
          .addColumn('reference', 'text', (c) => c.notNull().unique())
          .addColumn('processor_id', 'text', (c) => c.notNull().references('processors.id'))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('redsys_orders_pk', ['merchant_code', 'terminal', 'order_number']),
      )
      .execute();
  },
});
