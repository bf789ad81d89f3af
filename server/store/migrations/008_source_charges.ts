import { type Migration } from 'kysely';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (): Migration => ({
  async up(db) {
    // A card charge that paid part of a transaction's `source`: its refunds take that
    // transaction's destinations' shares back (store/destinations.ts).
    await db.schema.alterTable('sales').addColumn('source_transaction_id', 'text', (c) => c.references('transactions.id')).execute();
    await db.schema.createIndex('sales_source_transaction').on('sales').column('source_transaction_id').execute();
  },
});
