import type { Migration } from 'kysely';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (): Migration => ({
  async up(db) {
    // The retention jobs (jobs/retention.ts) find old rows by these without a table scan.
    await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').columns(['state', 'created_at']).execute();
    await db.schema.createIndex('events_delivered_created').on('events').columns(['delivery_status', 'created_at']).execute();
    await db.schema.createIndex('gateway_calls_settled').on('gateway_calls').columns(['state', 'updated_at']).execute();
  },
});
