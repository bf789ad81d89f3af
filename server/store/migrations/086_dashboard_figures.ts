import type { Migration } from 'kysely';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (): Migration => ({
  async up(db) {
    // The dashboard home counts the last 30 days (store/dashboard-figures.ts): these let the
    // database read that window's rows only, not every operation, attempt or dispute.
    await db.schema.createIndex('sale_operations_created').on('sale_operations').column('created_at').execute();
    await db.schema.createIndex('payment_attempts_created').on('payment_attempts').column('created_at').execute();
    await db.schema.createIndex('disputes_env_created').on('disputes').columns(['environment_id', 'created_at']).execute();
  },
});
