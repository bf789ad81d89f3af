import { type Migration } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // The merchant's balance transactions: one per movement of the merchant's own money
    // (a capture or charge, a refund), written with its ledger movement in one database
    // transaction. `operation_id` is unique: a sale operation makes at most one, whichever
    // process gets to it first.
    await d
      .table(db, 'balance_transactions')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('sale_id', 'text', (c) => c.notNull().references('sales.id'))
          .addColumn('operation_id', 'text', (c) => c.unique())
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('fee', d.int, (c) => c.notNull())
          .addColumn('net', d.int, (c) => c.notNull())
          .addColumn('available_on', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('balance_transactions_env_id').on('balance_transactions').columns(['environment_id', 'id']).execute();
    await db.schema.createIndex('balance_transactions_sale').on('balance_transactions').column('sale_id').execute();
    // An environment's pricing and settlement delay, set by the operator (npm run keys --
    // pricing). No row: no fees and the default delay.
    await d
      .table(db, 'environment_pricing')
      .build((t) =>
        t
          .addColumn('environment_id', 'text', (c) => c.primaryKey().references('environments.id'))
          .addColumn('charge_percent_e2', d.int, (c) => c.notNull())
          .addColumn('charge_fixed', d.int, (c) => c.notNull())
          .addColumn('refund_percent_e2', d.int, (c) => c.notNull())
          .addColumn('refund_fixed', d.int, (c) => c.notNull())
          .addColumn('settlement_delay_days', d.int, (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull()),
      )
      .execute();
  },
});
