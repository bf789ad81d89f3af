import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// When each processor last delivered a webhook that verified (issue 45's live readiness,
// docs/dashboard.md#live-readiness): one row per processor, written on every verified
// delivery to `/processors/{id}/events/`. A table of its own rather than a column of
// `processors`, so the hot write of a delivery never touches the row holding the sealed
// credentials (and never moves its `version`, which rebuilds the processor's gateways).
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'processor_deliveries')
      .build((t) =>
        t
          .addColumn('processor_id', 'text', (c) => c.primaryKey().references('processors.id'))
          .addColumn('last_verified_at', 'text', (c) => c.notNull()),
      )
      .execute();
  },
});
