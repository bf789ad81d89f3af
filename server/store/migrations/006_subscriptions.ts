import { type Migration } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'subscriptions')
      .build((t) =>
        owned(t)
          // The plan's id and its terms as they were at creation: a later PATCH or DELETE
          // of the plan never changes what an existing subscriber pays.
          .addColumn('plan_ref', 'text', (c) => c.notNull())
          .addColumn('plan_name', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('interval', 'text', (c) => c.notNull())
          .addColumn('interval_count', d.int, (c) => c.notNull())
          .addColumn('trial_days', d.int, (c) => c.notNull())
          .addColumn('client_ref', 'text')
          .addColumn('subscription_id', 'text')
          .addColumn('authorization_id', 'text', (c) => c.references('authorizations.id'))
          .addColumn('token', 'text', (c) => c.notNull().unique())
          .addColumn('notify_url', 'text')
          .addColumn('return_url', 'text')
          .addColumn('cancel_url', 'text')
          .addColumn('language', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('started_at', 'text')
          .addColumn('trial_end', 'text')
          // The period owed next: number `period` of the subscription's life (1, 2, …;
          // never reused), index `anchor_index` of the run that began at `anchor_at`.
          .addColumn('period', d.int, (c) => c.notNull())
          .addColumn('anchor_at', 'text')
          .addColumn('anchor_index', d.int, (c) => c.notNull())
          .addColumn('failures', d.int, (c) => c.notNull())
          .addColumn('next_charge_at', 'text')
          .addColumn('current_period_start', 'text')
          .addColumn('current_period_end', 'text')
          .addColumn('paused_at', 'text')
          .addColumn('stopped_at', 'text')
          .addColumn('stop_reason', 'text')
          // A scheduler's claim while it charges; expires if that process dies.
          .addColumn('claimed_until', 'text')
          .addColumn('claimed_by', 'text'),
      )
      .execute();
    await d
      .table(db, 'subscription_charges')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id'))
          .addColumn('period', d.int, (c) => c.notNull())
          .addColumn('period_start', 'text', (c) => c.notNull())
          .addColumn('period_end', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempts', d.int, (c) => c.notNull())
          .addColumn('reference', 'text', (c) => c.notNull())
          .addColumn('failure', 'text')
          .addColumn('transaction_id', 'text', (c) => c.references('transactions.id'))
          .addColumn('sale_id', 'text', (c) => c.references('sales.id'))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          // The reservation: a second charge of one period cannot even be recorded.
          .addUniqueConstraint('subscription_charges_period', ['subscription_id', 'period']),
      )
      .execute();
    await db.schema.createIndex('subscriptions_env_id').on('subscriptions').columns(['environment_id', 'id']).execute();
    await db.schema.createIndex('subscriptions_due').on('subscriptions').columns(['status', 'next_charge_at']).execute();
  },
});
