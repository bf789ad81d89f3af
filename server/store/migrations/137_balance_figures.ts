import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The dashboard home's "Net" (store/dashboard-figures.ts) sums the net of an environment's
// balance transactions of the last 30 days per quarter of an hour, type and currency: this
// index holds every column that sum reads, in the order of the range it reads, so the
// database reads the window's entries only, never the rows (no index had `created_at`).
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await db.schema.createIndex('balance_transactions_env_created').on('balance_transactions').columns(['environment_id', 'created_at', 'type', 'currency', 'net']).execute();
  },
});
