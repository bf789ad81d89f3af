import { type Migration } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // A transaction paid from its `source` has one sale of its own (payments/sources.ts):
    // its sources, one row each in the transaction's order. A card's row names the charge
    // that took its part (a sale of the authorization, `charge_id`); a wallet's counts what
    // refunds of the sale have given back to it (`refunded`; a card's is its charge's).
    await d
      .table(db, 'sale_sources')
      .build((t) =>
        t
          .addColumn('sale_id', 'text', (c) => c.notNull().references('sales.id'))
          .addColumn('position', d.int, (c) => c.notNull())
          .addColumn('wallet_id', 'text', (c) => c.references('wallets.id'))
          .addColumn('authorization_id', 'text', (c) => c.references('authorizations.id'))
          .addColumn('charge_id', 'text', (c) => c.references('sales.id'))
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('refunded', d.int, (c) => c.notNull())
          .addPrimaryKeyConstraint('sale_sources_pk', ['sale_id', 'position']),
      )
      .execute();
    await db.schema.createIndex('sale_sources_charge').on('sale_sources').column('charge_id').execute();
    // One refund of such a sale: reserved whole, in one database transaction, then made part
    // by part (payments/source-refunds.ts). `binding` is its Idempotency-Key's (null without
    // one): a repeat of the key rolls this refund forward instead of making another.
    await d
      .table(db, 'source_refunds')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('sale_id', 'text', (c) => c.notNull().references('sales.id'))
          .addColumn('binding', 'text', (c) => c.unique())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('source_refunds_sale').on('source_refunds').column('sale_id').execute();
  },
});
