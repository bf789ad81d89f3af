import type { Migration } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The payments list's saved views (issue 47, docs/dashboard.md#transactions-and-refunds): a
// name and the list's filters as its query string, per dashboard user and environment, so
// one member's views are nobody else's and never cross into another environment.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'saved_views')
      .build((t) =>
        owned(t)
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('query', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('saved_views_user').on('saved_views').columns(['user_id', 'environment_id', 'id']).execute();
  },
});
