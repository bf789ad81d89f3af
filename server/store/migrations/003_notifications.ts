import { type Migration } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // Sales and authorizations carry the notify_url of the transaction (or request) that
    // made them, so every event finds its URL on the object that changed.
    await db.schema.alterTable('sales').addColumn('notify_url', 'text').execute();
    await db.schema.alterTable('authorizations').addColumn('notify_url', 'text').execute();
    // A charge the gateway declined is kept as a sale that moved no money.
    await db.schema.alterTable('sales').addColumn('failure', 'text').execute();
    // The outbox: written in the same database transaction as the change it reports.
    await d
      .table(db, 'events')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('object_id', 'text', (c) => c.notNull())
          .addColumn('notify_url', 'text', (c) => c.notNull())
          // The exact JSON body sent on every attempt, so each retry is byte-identical.
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('delivery_status', 'text', (c) => c.notNull())
          .addColumn('attempt_count', d.int, (c) => c.notNull())
          .addColumn('next_attempt_at', 'text')
          // A worker's claim on the event while it posts it; expires if that worker dies.
          .addColumn('locked_until', 'text')
          .addColumn('claimed_by', 'text')
          .addColumn('delivered_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await d
      .table(db, 'delivery_attempts')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
          .addColumn('attempt', d.int, (c) => c.notNull())
          .addColumn('result', 'text', (c) => c.notNull())
          .addColumn('status_code', d.int)
          .addColumn('error', 'text')
          .addColumn('response_body', 'text')
          .addColumn('duration_ms', d.int, (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('events_env_id').on('events').columns(['environment_id', 'id']).execute();
    await db.schema.createIndex('events_due').on('events').columns(['delivery_status', 'next_attempt_at']).execute();
    await db.schema.createIndex('delivery_attempts_event').on('delivery_attempts').columns(['event_id', 'attempt']).execute();
    await db.schema.createIndex('transactions_expiry').on('transactions').columns(['status', 'expired_at']).execute();
    await db.schema.createIndex('sales_authorization').on('sales').column('authorization_id').execute();
  },
});
