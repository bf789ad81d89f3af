import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (_d: Def): Migration => ({
  async up(db) {
    // The processor's own id of what a gateway call made or started (an approved answer's
    // reference, a challenge's processor id): given back to the gateway's `lookup` and read
    // with its notifications (issue 45). Null: the processor named nothing, or the call
    // was made before.
    await db.schema.alterTable('gateway_calls').addColumn('processor_id', 'text').execute();
  },
});
