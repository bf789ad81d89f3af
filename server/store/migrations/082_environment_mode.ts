import { type Migration, sql } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Every environment is a sandbox or live. The ones that exist were all sandboxes (their
// sandbox gateways and test cards worked), so they stay so; only `keys create --live`
// makes a live one.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await db.schema
      .alterTable('environments')
      .addColumn('mode', 'text', (c) => c.notNull().defaultTo('sandbox'))
      .execute();
    if (d.engine === 'postgres') {
      await sql`alter table environments add constraint environments_mode_check check (mode in ('sandbox', 'live'))`.execute(db);
    }
  },
});
