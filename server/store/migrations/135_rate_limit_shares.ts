import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A process may take a share of a hot bucket's tokens in one UPSERT and spend them without
// the database (store/rate-limits.ts, issue 49): the row says how many it was given, which
// RETURNING cannot tell from the new `tat` alone. `allowed` stays, written as before, for
// a process of the previous release still running beside this one.
export const migration = (d: Def): Migration => ({
  async up(db) {
    if (d.engine === 'postgres') await sql`alter table rate_limits add column granted integer not null default 1`.execute(db);
  },
});
