import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Each process keeps the gateways built from an environment's processors (issue 49: their
// read was one statement of every request that pays, shows a payment page or moves a
// sale's money), as it keeps key checks (092). A processor connected, changed or deleted
// moves `auth_changes`' version on, as a key or an environment does, so every process sees
// it within the watch's window (store/auth-changes.ts). Every such write moves the row's
// own `version` on; the sweep's schedule (`sweep_due_at`) does not, and must not empty
// every process's keeping each time it runs.
export const migration = (d: Def): Migration => ({
  async up(db) {
    if (d.engine === 'postgres') {
      await sql`create trigger processors_auth_changed after insert or delete or update of version on processors
        for each statement execute function auth_changed()`.execute(db);
      return;
    }
    for (const event of ['insert', 'delete', 'update of version']) {
      await sql`create trigger ${sql.id(`processors_${event.split(' ')[0]}_auth_changed`)} after ${sql.raw(event)} on processors
        begin update auth_changes set version = version + 1 where id = 1; end`.execute(db);
    }
  },
});
