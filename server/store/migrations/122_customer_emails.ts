import type { Migration } from 'kysely';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The dashboard's Customers page (issue 47, store/customers.ts) groups an environment's
// payments by the email their payer gave, and finds one customer's payments by the emails
// they typed: both by this index rather than by reading every payment of the environment.
export const migration = (): Migration => ({
  async up(db) {
    await db.schema.createIndex('transactions_env_customer_email').on('transactions').columns(['environment_id', 'customer_email']).execute();
  },
});
