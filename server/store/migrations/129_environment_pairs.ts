import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A shop's sandbox and live environments as a pair (issue 47, the dashboard's test/live
// switch): both carry the same pair id, one of each mode at most, so the brand and time zone
// saved in one are saved in the other. Null: not paired.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('environments').addColumn('pair_id', 'text').execute();
    await db.schema.createIndex('environments_pair_mode').unique().on('environments').columns(['pair_id', 'mode']).execute();
  },
});
