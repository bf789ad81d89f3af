import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A shop's time zone (issue 47): the dashboard writes its times, cuts its days (the home's
// figures, date filters) and dates its exports in it. An IANA name, checked by the dashboard
// against the runtime's list (server/domain/time-zone.ts); stored instants stay UTC.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('environments').addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC')).execute();
  },
});
