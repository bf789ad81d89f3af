import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Each process keeps its environments' enabled webhook endpoints (issue 49: every change
// that tells an event read them, two statements of every payment), as it keeps key checks
// (092) and processors (131). An endpoint created or deleted, or its URL, events or state
// changed, moves `auth_changes`' version on, so every process sees it within the watch's
// window (store/auth-changes.ts). Its deliveries' marks (`last_delivered_at`, a failing
// spell's mail) do not, and must not empty every process's keeping each time one is sent.
const EVENTS = ['insert', 'delete', 'update of url, enabled_events, enabled'];

export const migration = (d: Def): Migration => ({
  async up(db) {
    if (d.engine === 'postgres') {
      await sql`create trigger webhook_endpoints_auth_changed after ${sql.raw(EVENTS.join(' or '))} on webhook_endpoints
        for each statement execute function auth_changed()`.execute(db);
      return;
    }
    for (const event of EVENTS) {
      await sql`create trigger ${sql.id(`webhook_endpoints_${event.split(' ')[0]}_auth_changed`)} after ${sql.raw(event)} on webhook_endpoints
        begin update auth_changes set version = version + 1 where id = 1; end`.execute(db);
    }
  },
});
