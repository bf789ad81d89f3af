import { type Migration, sql } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A balance transaction is no longer always a sale's: a dispute's debit and its reversal
// name their dispute (`dispute_id`, the sale stays), a payout to the merchant names the
// payout (`payout_id`) and has no sale, and a charge or refund names the payout that paid
// it out once one has (`payout_id` again: the settlement report's lines). SQLite cannot drop
// a NOT NULL, so there the table is rebuilt with its rows.
export const migration = (d: Def): Migration => ({
  async up(db) {
    if (d.engine === 'postgres') {
      await sql`alter table balance_transactions alter column sale_id drop not null`.execute(db);
      await db.schema.alterTable('balance_transactions').addColumn('dispute_id', 'text').execute();
      await db.schema.alterTable('balance_transactions').addColumn('payout_id', 'text').execute();
    } else {
      await d
        .table(db, 'balance_transactions_new')
        .build((t) =>
          t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
            .addColumn('type', 'text', (c) => c.notNull())
            .addColumn('sale_id', 'text', (c) => c.references('sales.id'))
            .addColumn('operation_id', 'text', (c) => c.unique())
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('amount', d.int, (c) => c.notNull())
            .addColumn('fee', d.int, (c) => c.notNull())
            .addColumn('net', d.int, (c) => c.notNull())
            .addColumn('available_on', 'text', (c) => c.notNull())
            .addColumn('created_at', 'text', (c) => c.notNull())
            .addColumn('dispute_id', 'text')
            .addColumn('payout_id', 'text'),
        )
        .execute();
      await sql`insert into balance_transactions_new (id, environment_id, type, sale_id, operation_id, currency, amount, fee, net, available_on, created_at)
        select id, environment_id, type, sale_id, operation_id, currency, amount, fee, net, available_on, created_at from balance_transactions`.execute(db);
      await db.schema.dropTable('balance_transactions').execute();
      await sql`alter table balance_transactions_new rename to balance_transactions`.execute(db);
      await db.schema.createIndex('balance_transactions_env_id').on('balance_transactions').columns(['environment_id', 'id']).execute();
      await db.schema.createIndex('balance_transactions_sale').on('balance_transactions').column('sale_id').execute();
    }
    await db.schema.createIndex('balance_transactions_dispute').on('balance_transactions').column('dispute_id').execute();
    await db.schema.createIndex('balance_transactions_payout').on('balance_transactions').column('payout_id').execute();
  },
});
