import { type Migration, sql } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Every status, state and kind column accepts only the values the code knows, on
// PostgreSQL: a bug that writes another one is refused by the database instead of
// leaving a row no reader understands. The values are written out here, as they were when
// this migration was made: a later value comes with a migration that widens its check.
// SQLite has no ALTER TABLE … ADD CONSTRAINT, and rebuilding its tables for it is not
// worth the risk: there the conditional updates and the zod schemas are the guard.
const CHECKS: [table: string, column: string, values: string[]][] = [
  ['transactions', 'status', ['N', 'C', 'D', 'E']],
  ['transactions', 'source_state', ['reserved', 'paid', 'failed']],
  ['coupons', 'kind', ['fixed', 'percent']],
  ['plans', 'interval', ['day', 'week', 'month', 'year']],
  ['subscriptions', 'interval', ['day', 'week', 'month', 'year']],
  ['subscriptions', 'status', ['waiting', 'trialing', 'active', 'paused', 'past_due', 'stopped']],
  ['subscription_charges', 'status', ['pending', 'charged', 'failed']],
  ['authorizations', 'status', ['pending', 'active', 'removed', 'failed']],
  ['sale_operations', 'kind', ['authorize', 'capture', 'refund', 'void', 'charge', 'decline']],
  ['payment_challenges', 'state', ['open', 'answered', 'completed', 'failed', 'abandoned']],
  ['gateway_calls', 'kind', ['pay', 'charge', 'store', 'capture', 'refund', 'void', 'subscription']],
  ['gateway_calls', 'state', ['pending', 'succeeded', 'failed', 'abandoned', 'reversed', 'attention']],
  ['event_deliveries', 'delivery_status', ['pending', 'delivered', 'failed', 'stopped']],
  ['mails', 'kind', ['payment_receipt', 'refund_receipt', 'signup_confirmation', 'trial_reminder']],
  ['mails', 'status', ['pending', 'sent', 'failed']],
  ['client_documents', 'status', ['pending', 'accepted', 'rejected']],
  ['transfers', 'status', ['pending', 'paid', 'failed']],
  ['memberships', 'role', ['owner', 'admin', 'viewer']],
  ['invites', 'role', ['owner', 'admin', 'viewer']],
];

export const migration = (d: Def): Migration => ({
  async up(db) {
    if (d.engine !== 'postgres') return;
    for (const [table, column, values] of CHECKS) {
      // A null stays allowed where the column allows it (source_state): CHECK passes on null.
      const allowed = sql.join(values.map((v) => sql.lit(v)));
      await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_${column}_check`)} check (${sql.ref(column)} in (${allowed}))`.execute(db);
    }
  },
});
