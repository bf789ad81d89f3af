import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Each process keeps the gateways built from an environment's processors (issue 49: their
// read was one statement of every request that pays, shows a payment page or moves a
// sale's money) and its pricing (read by every round of the balance job), as it keeps key
// checks (092). A processor connected, changed or deleted, or a pricing set, moves
// `auth_changes`' version on, as a key or an environment does, so every process sees it
// within the watch's window (store/auth-changes.ts). Every change of a processor moves the
// row's own `version` on; the sweep's schedule (`sweep_due_at`) does not, and must not
// empty every process's keeping each time it runs.
const WATCHED = [
  { table: 'processors', events: ['insert', 'delete', 'update of version'] },
  { table: 'environment_pricing', events: ['insert', 'delete', 'update'] },
];

export const migration = (d: Def): Migration => ({
  async up(db) {
    for (const { table, events } of WATCHED) {
      if (d.engine === 'postgres') {
        await sql`create trigger ${sql.id(`${table}_auth_changed`)} after ${sql.raw(events.join(' or '))} on ${sql.table(table)}
          for each statement execute function auth_changed()`.execute(db);
        continue;
      }
      for (const event of events) {
        await sql`create trigger ${sql.id(`${table}_${event.split(' ')[0]}_auth_changed`)} after ${sql.raw(event)} on ${sql.table(table)}
          begin update auth_changes set version = version + 1 where id = 1; end`.execute(db);
      }
    }
  },
});
