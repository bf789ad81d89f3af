import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // An environment's own API rate limit (requests per second); null: API_RATE_LIMIT.
    await db.schema.alterTable('environments').addColumn('rate_limit', d.int).execute();
    // The buckets of every process (store/rate-limits.ts). UNLOGGED: no WAL for a write
    // made on every request; a crash empties the table, which only forgets who was near a
    // limit. SQLite keeps its buckets in memory (one process).
    if (d.engine === 'postgres') {
      await sql`create unlogged table rate_limits (key text primary key, tat float8 not null, allowed boolean not null)`.execute(db);
    }
  },
});
