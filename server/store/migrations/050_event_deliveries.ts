import { type Migration, sql } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // Every change is an event now, whether or not anyone is told: an event no longer is
    // its notify_url delivery. Its deliveries (the notify_url's, one per webhook endpoint)
    // move to event_deliveries, each with its own state and attempts. SQLite cannot drop a
    // NOT NULL, so events is rebuilt, and delivery_attempts with it (it references events);
    // the new tables reference the new ones, which then take the old names.
    await d
      .table(db, 'webhook_endpoints')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('description', 'text')
          // JSON array of event types, or ["*"].
          .addColumn('enabled_events', 'text', (c) => c.notNull())
          .addColumn('enabled', d.int, (c) => c.notNull())
          // Why it was disabled by the service ('failing'); null when enabled or disabled by the merchant.
          .addColumn('disabled_reason', 'text')
          // Signing secrets (whsec_…): kept as they are, every delivery is signed with them.
          .addColumn('secret', 'text', (c) => c.notNull())
          .addColumn('previous_secret', 'text')
          .addColumn('previous_expires_at', 'text')
          .addColumn('last_delivered_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('webhook_endpoints_env_id').on('webhook_endpoints').columns(['environment_id', 'id']).execute();

    await d
      .table(db, 'events_new')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('object_id', 'text', (c) => c.notNull())
          // The object's notify_url when the event happened; null when it had none.
          .addColumn('notify_url', 'text')
          // The exact JSON body sent on every attempt to every destination.
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await d
      .table(db, 'event_deliveries')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('event_id', 'text', (c) => c.notNull().references('events_new.id'))
          .addColumn('environment_id', 'text', (c) => c.notNull())
          // Null: the event's notify_url. No reference: a deleted endpoint's history stays.
          .addColumn('endpoint_id', 'text')
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('delivery_status', 'text', (c) => c.notNull())
          .addColumn('attempt_count', d.int, (c) => c.notNull())
          .addColumn('next_attempt_at', 'text')
          .addColumn('locked_until', 'text')
          .addColumn('claimed_by', 'text')
          .addColumn('delivered_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await d
      .table(db, 'delivery_attempts_new')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('delivery_id', 'text', (c) => c.notNull().references('event_deliveries.id'))
          .addColumn('event_id', 'text', (c) => c.notNull().references('events_new.id'))
          .addColumn('attempt', d.int, (c) => c.notNull())
          .addColumn('result', 'text', (c) => c.notNull())
          .addColumn('status_code', d.int)
          .addColumn('error', 'text')
          .addColumn('response_body', 'text')
          .addColumn('duration_ms', d.int, (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await sql`insert into events_new (id, environment_id, type, object_id, notify_url, payload, created_at)
      select id, environment_id, type, object_id, notify_url, payload, created_at from events`.execute(db);
    // Each old event was one notify_url delivery: it keeps the event's id.
    await sql`insert into event_deliveries (id, event_id, environment_id, endpoint_id, url, delivery_status, attempt_count,
        next_attempt_at, locked_until, claimed_by, delivered_at, created_at)
      select id, id, environment_id, null, notify_url, delivery_status, attempt_count,
        next_attempt_at, locked_until, claimed_by, delivered_at, created_at from events`.execute(db);
    await sql`insert into delivery_attempts_new (id, delivery_id, event_id, attempt, result, status_code, error, response_body, duration_ms, created_at)
      select id, event_id, event_id, attempt, result, status_code, error, response_body, duration_ms, created_at from delivery_attempts`.execute(db);
    await db.schema.dropTable('delivery_attempts').execute();
    await db.schema.dropTable('events').execute();
    await db.schema.alterTable('events_new').renameTo('events').execute();
    await db.schema.alterTable('delivery_attempts_new').renameTo('delivery_attempts').execute();

    await db.schema.createIndex('events_env_id').on('events').columns(['environment_id', 'id']).execute();
    await db.schema.createIndex('events_env_object').on('events').columns(['environment_id', 'object_id']).execute();
    // The retention job finds old events by this.
    await db.schema.createIndex('events_created').on('events').column('created_at').execute();
    await db.schema.createIndex('event_deliveries_due').on('event_deliveries').columns(['delivery_status', 'next_attempt_at']).execute();
    await db.schema.createIndex('event_deliveries_event').on('event_deliveries').column('event_id').execute();
    await db.schema.createIndex('delivery_attempts_delivery').on('delivery_attempts').columns(['delivery_id', 'attempt']).execute();
    await db.schema.createIndex('delivery_attempts_event').on('delivery_attempts').column('event_id').execute();
  },
});
