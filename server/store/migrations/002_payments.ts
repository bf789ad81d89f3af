import { type Migration } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // Set while one payment attempt talks to its gateway, so a second click waits its
    // turn instead of charging twice; cleared when the attempt ends.
    await db.schema.alterTable('transactions').addColumn('processing_until', 'text').execute();
    // Server-wide secrets (the checkout's CSRF key), shared by every process.
    await d
      .table(db, 'secrets')
      .build((t) =>
        t.addColumn('name', 'text', (c) => c.primaryKey()).addColumn('value', 'text', (c) => c.notNull()),
      )
      .execute();
    await d
      .table(db, 'authorizations')
      .build((t) =>
        owned(t)
          .addColumn('transaction_id', 'text', (c) => c.references('transactions.id'))
          .addColumn('gateway_id', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('card_brand', 'text')
          .addColumn('card_last4', 'text')
          .addColumn('card_exp_month', d.int)
          .addColumn('card_exp_year', d.int)
          .addColumn('gateway_reference', 'text', (c) => c.notNull()),
      )
      .execute();
    await d
      .table(db, 'sales')
      .build((t) =>
        owned(t)
          // One sale per paid transaction: the database itself refuses a second payment.
          .addColumn('transaction_id', 'text', (c) => c.unique().references('transactions.id'))
          .addColumn('authorization_id', 'text', (c) => c.references('authorizations.id'))
          .addColumn('gateway_id', 'text', (c) => c.notNull())
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('held', d.int, (c) => c.notNull())
          .addColumn('captured', d.int, (c) => c.notNull())
          .addColumn('refunded', d.int, (c) => c.notNull())
          .addColumn('voided', d.int, (c) => c.notNull())
          .addColumn('description', 'text')
          .addColumn('card_brand', 'text')
          .addColumn('card_last4', 'text'),
      )
      .execute();
    await d
      .table(db, 'sale_operations')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('sale_id', 'text', (c) => c.notNull().references('sales.id'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('gateway_reference', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await d
      .table(db, 'payment_attempts')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
          .addColumn('gateway_id', 'text', (c) => c.notNull())
          .addColumn('outcome', 'text', (c) => c.notNull())
          .addColumn('card_brand', 'text')
          .addColumn('card_last4', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    for (const table of ['sales', 'authorizations']) {
      await db.schema
        .createIndex(`${table}_env_id`)
        .on(table)
        .columns(['environment_id', 'id'])
        .execute();
    }
    await db.schema.createIndex('sale_operations_sale').on('sale_operations').column('sale_id').execute();
    await db.schema
      .createIndex('payment_attempts_tx')
      .on('payment_attempts')
      .column('transaction_id')
      .execute();
  },
});
