import type { Migration } from 'kysely';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The dashboard's search box (store/global-search.ts) finds card payments, refunds,
// disputes and stored cards by a card's last four digits: these let the database go
// straight to one environment's rows with those digits instead of reading all of its
// sales or cards. The transactions' search asks whether a transaction has a sale with
// them: sales by transaction were not indexed either.
export const migration = (): Migration => ({
  async up(db) {
    await db.schema.createIndex('sales_env_last4').on('sales').columns(['environment_id', 'card_last4']).execute();
    await db.schema.createIndex('authorizations_env_last4').on('authorizations').columns(['environment_id', 'card_last4']).execute();
    await db.schema.createIndex('sales_transaction').on('sales').column('transaction_id').execute();
  },
});
