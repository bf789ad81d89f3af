import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A new bank account for payouts is held (issue 47; docs/balance.md "A new bank account is
// held"): no payout is made until an owner confirms it from the email every owner gets, or
// until `payouts_held_until` passes (72 hours after the change). The links in those emails
// are one row each, made when the email is sent: only the SHA-256 of the token is stored,
// with the hold it confirms (its `held_until`, so a link of an earlier change confirms
// nothing once a newer change holds again). The email is a new kind in the mail queue.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('merchant_payout_settings').addColumn('payouts_held_until', 'text').execute();
    await d
      .table(db, 'payout_account_links')
      .build((t) =>
        t
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('held_until', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    // The owners' email of a change joins the dashboard's own emails in the mail queue.
    if (d.engine === 'postgres') {
      const kinds = ['payment_receipt', 'refund_receipt', 'signup_confirmation', 'trial_reminder', 'password_reset', 'dashboard_invite', 'payout_account_changed'];
      await sql`alter table mails drop constraint mails_kind_check`.execute(db);
      await sql`alter table mails add constraint mails_kind_check check (kind in (${sql.join(kinds.map((k) => sql.lit(k)))}))`.execute(db);
    }
  },
});
