import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // Whether an invite's link proves its holder reads the account's email: one sent to that
    // address, or one the operator printed (the users CLI, the first start) and handed over.
    // Only such a link may set an account's first password; a link an owner sees on screen
    // only adds a membership to an account that has a password already (issue 44).
    await db.schema.alterTable('invites').addColumn('proves_email', d.int, (c) => c.notNull().defaultTo(0)).execute();
    // Open invites made before: the operator's carry no inviter; an owner's were shown on screen.
    await db.updateTable('invites').set({ proves_email: 1 }).where('created_by', 'is', null).execute();
  },
});
