import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Each process keeps the key checks it has made (store/key-checks.ts) instead of reading
// the key and its environment on every API request. `auth_changes` is what tells it they
// may be stale: one row whose version every write to `api_keys` or `environments` moves
// on, by trigger, so a key revoked or rolled by any process (the keys CLI, the dashboard,
// another service process) is seen by all of them at their next look at the version.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'auth_changes')
      .build((t) => t.addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('version', d.int, (c) => c.notNull()))
      .execute();
    await db.insertInto('auth_changes' as never).values({ id: 1, version: 0 } as never).execute();
    if (d.engine === 'postgres') {
      await sql`create function auth_changed() returns trigger language plpgsql as $$
        begin update auth_changes set version = version + 1 where id = 1; return null; end $$`.execute(db);
      for (const table of ['api_keys', 'environments']) {
        await sql`create trigger ${sql.id(`${table}_auth_changed`)} after insert or update or delete on ${sql.table(table)}
          for each statement execute function auth_changed()`.execute(db);
      }
      return;
    }
    for (const table of ['api_keys', 'environments']) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql`create trigger ${sql.id(`${table}_${event}_auth_changed`)} after ${sql.raw(event)} on ${sql.table(table)}
          begin update auth_changes set version = version + 1 where id = 1; end`.execute(db);
      }
    }
  },
});
