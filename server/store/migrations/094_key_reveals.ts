import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A key's new secret (created or rolled in the dashboard) waits here for the one page that
// shows it, after the POST's redirect (docs/dashboard.md#api-keys): sealed under a key only
// the dashboard session that asked can derive (its cookie, which the database never holds),
// bound to that session, read and deleted by one statement, and gone after a few minutes
// unread. One per key: a later roll's secret replaces an unshown earlier one.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'api_key_reveals')
      .build((t) =>
        t
          .addColumn('key_id', 'text', (c) => c.primaryKey().references('api_keys.id'))
          .addColumn('session_id_hash', 'text', (c) => c.notNull())
          .addColumn('sealed_secret', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text', (c) => c.notNull()),
      )
      .execute();
  },
});
