import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // "Forgot your password?": one-time links sent to the account's email, valid an hour;
    // only the token's SHA-256 is kept. Used (or made pointless by a newer password), a
    // link's used_at is set.
    await d
      .table(db, 'password_resets')
      .build((t) =>
        t
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .addColumn('used_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
    // The dashboard's own emails join the customers' in the mail queue: a reset link, an invite.
    if (d.engine === 'postgres') {
      const kinds = ['payment_receipt', 'refund_receipt', 'signup_confirmation', 'trial_reminder', 'password_reset', 'dashboard_invite'];
      await sql`alter table mails drop constraint mails_kind_check`.execute(db);
      await sql`alter table mails add constraint mails_kind_check check (kind in (${sql.join(kinds.map((k) => sql.lit(k)))}))`.execute(db);
    }
  },
});
