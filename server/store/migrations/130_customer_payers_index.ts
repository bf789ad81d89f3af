import type { Migration } from 'kysely';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The dashboard's Customers page (issue 47, store/customers.ts) groups every payment of an
// environment by its email, with its id, time and order id: from an index that holds them
// all, SQLite no longer reads each payment's row (10,000 of them at the size measured in
// docs/performance.md, "The dashboard's pages"). It serves every lookup of 122's index,
// whose columns it begins with, so it replaces it: one index to keep up per payment, as before.
export const migration = (): Migration => ({
  async up(db) {
    await db.schema.createIndex('transactions_env_customer_email_cover').on('transactions').columns(['environment_id', 'customer_email', 'created_at', 'id', 'order_id']).execute();
    await db.schema.dropIndex('transactions_env_customer_email').execute();
  },
});
