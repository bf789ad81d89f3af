import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Indexes for the dashboard's pages at 10,000 payments (issue 47, docs/performance.md, "The
// dashboard's pages"). The home's figures read a kind of sale operation or a refused payment
// attempt over the last 30 days: each from an index that holds every column it needs, in
// the order of the range it reads, instead of the rows. The webhook deliveries' count reads
// the deliveries of one environment (each delivery has its event's environment) instead of
// every event's deliveries.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await db.schema.createIndex('sale_operations_kind_created').on('sale_operations').columns(['kind', 'created_at', 'sale_id', 'amount']).execute();
    await db.schema.createIndex('payment_attempts_outcome_created').on('payment_attempts').columns(['outcome', 'created_at', 'transaction_id']).execute();
    await db.schema.createIndex('event_deliveries_env').on('event_deliveries').column('environment_id').execute();
  },
});
