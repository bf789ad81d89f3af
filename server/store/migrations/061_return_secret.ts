import { randomBytes } from 'node:crypto';
import type { Kysely, Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (_d: Def): Migration => ({
  async up(db: Kysely<any>) {
    // Returns to return_url / cancel_url are signed with a secret of their own (not the
    // webhook secret); a roll keeps the previous one signing until it expires.
    await db.schema.alterTable('environments').addColumn('return_secret', 'text').execute();
    await db.schema.alterTable('environments').addColumn('previous_return_secret', 'text').execute();
    await db.schema.alterTable('environments').addColumn('previous_return_secret_expires_at', 'text').execute();
    const rows = (await db.selectFrom('environments').select('id').execute()) as { id: string }[];
    for (const { id } of rows) {
      await db.updateTable('environments').set({ return_secret: `whsec_${randomBytes(24).toString('base64')}` }).where('id', '=', id).execute();
    }
  },
});
