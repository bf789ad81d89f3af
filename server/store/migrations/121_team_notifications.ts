import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Emails to a merchant's team (issue 47; docs/dashboard.md "Notifications"): a new dispute,
// a failed payout, a webhook endpoint failing for a day. A member's choices, per
// environment, are one row here; without a row the role's default applies (owners and
// admins get them). `language` is the dashboard's language the member chose them in, the
// language their emails are written in. An endpoint remembers the start of the failing
// spell it was mailed about, so a spell mails once and the next one mails again. The three
// emails are new kinds in the mail queue.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'notification_preferences')
      .build((t) =>
        t
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('dispute_opened', 'integer', (c) => c.notNull())
          .addColumn('payout_failed', 'integer', (c) => c.notNull())
          .addColumn('endpoint_failing', 'integer', (c) => c.notNull())
          .addColumn('language', 'text')
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('notification_preferences_pk', ['user_id', 'environment_id']),
      )
      .execute();
    await db.schema.alterTable('webhook_endpoints').addColumn('failing_mailed_for', 'text').execute();
    // The failing-endpoint job reads each endpoint's deliveries.
    await db.schema.createIndex('event_deliveries_endpoint').on('event_deliveries').column('endpoint_id').execute();
    if (d.engine === 'postgres') {
      const kinds = [
        'payment_receipt',
        'refund_receipt',
        'signup_confirmation',
        'trial_reminder',
        'password_reset',
        'dashboard_invite',
        'payout_account_changed',
        'dispute_opened',
        'payout_failed',
        'endpoint_failing',
      ];
      await sql`alter table mails drop constraint mails_kind_check`.execute(db);
      await sql`alter table mails add constraint mails_kind_check check (kind in (${sql.join(kinds.map((k) => sql.lit(k)))}))`.execute(db);
    }
  },
});
